use super::*;

/// Pairs from (patch, file) indentations, one file line each.
fn pairs(v: &[(&str, &str)]) -> Vec<IndentPair> {
    v.iter()
        .enumerate()
        .map(|(i, (p, f))| IndentPair {
            patch: p.to_string(),
            file: f.to_string(),
            file_line: i,
        })
        .collect()
}

fn to(s: &str) -> Mapped {
    Mapped::To(s.to_string())
}

#[test]
fn a_level_standing_for_two_is_split() {
    // 4 spaces in the patch stand for 8 above and 4 below.
    let split = pairs(&[("    ", "        "), ("    ", "    ")]);
    assert_eq!(map_indent(&split, "    "), Mapped::Split(0, 1));
    // A level beside the split one is not determined either.
    assert_eq!(map_indent(&split, "        "), Mapped::Undetermined(vec![]));
    let one = pairs(&[("  ", "    "), ("  ", "    ")]);
    assert_eq!(map_indent(&one, "  "), to("    "));
}

#[test]
fn lines_kept_as_the_file_has_them_keep_added_lines_as_written() {
    let same = pairs(&[("    ", "    "), ("        ", "        ")]);
    assert_eq!(map_indent(&same, "            "), Mapped::AsWritten);
    // A context line drifted to tabs says nothing about a spaces level.
    let drift = pairs(&[("    ", "    "), ("\t\t", "        ")]);
    assert_eq!(map_indent(&drift, "            "), Mapped::AsWritten);
    assert_eq!(map_indent(&drift, "\t\t"), to("        "));
}

#[test]
fn a_shift_seen_at_two_levels_moves_every_level() {
    let shifted = pairs(&[("", "        "), ("    ", "            ")]);
    assert_eq!(map_indent(&shifted, "        "), to(&" ".repeat(16)));
    let tabs = pairs(&[("", "\t"), ("\t", "\t\t")]);
    assert_eq!(map_indent(&tabs, "\t\t"), to("\t\t\t"));
    // A prefix of spaces before tabs.
    let mixed = pairs(&[("\t", "  \t"), ("\t\t", "  \t\t")]);
    assert_eq!(map_indent(&mixed, "\t\t\t"), to("  \t\t\t"));
}

#[test]
fn a_scale_seen_at_two_levels_maps_levels_on_its_grid() {
    // A 2-space patch for a 4-space file, a shallower level unseen.
    let twice = pairs(&[("    ", "        "), ("      ", "            ")]);
    assert_eq!(map_indent(&twice, "  "), to("    "));
    // A 4-space patch for a 2-space file.
    let half = pairs(&[("", ""), ("    ", "  "), ("        ", "    ")]);
    assert_eq!(map_indent(&half, "            "), to("      "));
    // Tabs for spaces.
    let tabs = pairs(&[("\t", "    "), ("\t\t", "        ")]);
    assert_eq!(map_indent(&tabs, "\t\t\t"), to(&" ".repeat(12)));
    // Between two levels of the patch's grid: no level of it.
    let yaml = pairs(&[("    ", "    "), ("        ", "      ")]);
    assert_eq!(map_indent(&yaml, "      "), Mapped::Undetermined(vec![]));
}

#[test]
fn one_level_leaves_other_levels_open_unless_the_characters_decide() {
    // Shift (10), scale or the line as written (6): refused.
    let one = pairs(&[("    ", "        ")]);
    assert!(matches!(
        map_indent(&one, "      "),
        Mapped::Undetermined(r) if r.len() == 2
    ));
    // Context stripped to column 0: 8 or as written.
    let flush = pairs(&[("", "    ")]);
    assert!(matches!(
        map_indent(&flush, "    "),
        Mapped::Undetermined(_)
    ));
    // Spaces for tabs: only tabs are the file's, one tab for 4 spaces.
    let tab = pairs(&[("    ", "\t")]);
    assert_eq!(map_indent(&tab, "        "), to("\t\t"));
    assert_eq!(map_indent(&tab, "      "), Mapped::Undetermined(vec![]));
}

#[test]
fn no_map_fits_a_bent_level() {
    // One context line 2 off among lines kept as they are.
    let bent = pairs(&[
        ("            ", "            "),
        ("      ", "        "),
        ("    ", "    "),
    ]);
    assert_eq!(map_indent(&bent, "        "), Mapped::Undetermined(vec![]));
    assert_eq!(map_indent(&bent, "            "), Mapped::AsWritten);
}

#[test]
fn indentations_read_as_counts() {
    assert_eq!(describe("      "), "6 spaces");
    assert_eq!(describe("\t"), "1 tab");
    assert_eq!(describe("  \t\t"), "2 spaces and 2 tabs");
}
