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
    assert_eq!(map_indent(&split, "    ", None), Mapped::Split(0, 1));
    // A level beside the split one is not determined either.
    assert_eq!(
        map_indent(&split, "        ", None),
        Mapped::Undetermined(vec![])
    );
    let one = pairs(&[("  ", "    "), ("  ", "    ")]);
    assert_eq!(map_indent(&one, "  ", None), to("    "));
}

#[test]
fn lines_kept_as_the_file_has_them_keep_added_lines_as_written() {
    let same = pairs(&[("    ", "    "), ("        ", "        ")]);
    assert_eq!(map_indent(&same, "            ", None), Mapped::AsWritten);
    // A context line drifted to tabs says nothing about a spaces level.
    let drift = pairs(&[("    ", "    "), ("\t\t", "        ")]);
    assert_eq!(map_indent(&drift, "            ", None), Mapped::AsWritten);
    assert_eq!(map_indent(&drift, "\t\t", None), to("        "));
}

#[test]
fn a_shift_seen_at_two_levels_moves_every_level() {
    let shifted = pairs(&[("", "        "), ("    ", "            ")]);
    assert_eq!(map_indent(&shifted, "        ", None), to(&" ".repeat(16)));
    let tabs = pairs(&[("", "\t"), ("\t", "\t\t")]);
    assert_eq!(map_indent(&tabs, "\t\t", None), to("\t\t\t"));
    // A prefix of spaces before tabs.
    let mixed = pairs(&[("\t", "  \t"), ("\t\t", "  \t\t")]);
    assert_eq!(map_indent(&mixed, "\t\t\t", None), to("  \t\t\t"));
}

#[test]
fn a_scale_seen_at_two_levels_maps_levels_on_its_grid() {
    // A 2-space patch for a 4-space file, a shallower level unseen.
    let twice = pairs(&[
        ("    ", "        "),
        ("      ", "            "),
        ("    ", "        "),
    ]);
    assert_eq!(map_indent(&twice, "  ", Some(4)), to("    "));
    // A 4-space patch for a 2-space file.
    let half = pairs(&[("", ""), ("    ", "  "), ("        ", "    ")]);
    assert_eq!(map_indent(&half, "            ", None), to("      "));
    // Tabs for spaces.
    let tabs = pairs(&[("\t", "    "), ("\t\t", "        ")]);
    assert_eq!(map_indent(&tabs, "\t\t\t", None), to(&" ".repeat(12)));
    // Between two levels of the patch's grid: no level of it.
    let yaml = pairs(&[("    ", "    "), ("        ", "      ")]);
    assert_eq!(
        map_indent(&yaml, "      ", None),
        Mapped::Undetermined(vec![])
    );
}

#[test]
fn one_level_leaves_other_levels_open_unless_the_characters_decide() {
    // Shift (10), scale or the line as written (6): refused.
    let one = pairs(&[("    ", "        ")]);
    assert!(matches!(
        map_indent(&one, "      ", None),
        Mapped::Undetermined(r) if r.len() == 2
    ));
    // Context stripped to column 0: 8 or as written.
    let flush = pairs(&[("", "    ")]);
    assert!(matches!(
        map_indent(&flush, "    ", None),
        Mapped::Undetermined(_)
    ));
    // Spaces for tabs: only tabs are the file's, one tab for 4 spaces.
    let tab = pairs(&[("    ", "\t")]);
    assert_eq!(map_indent(&tab, "        ", None), to("\t\t"));
    assert_eq!(
        map_indent(&tab, "      ", None),
        Mapped::Undetermined(vec![])
    );
}

#[test]
fn no_map_fits_a_bent_level() {
    // One context line 2 off among lines kept as they are.
    let bent = pairs(&[
        ("            ", "            "),
        ("      ", "        "),
        ("    ", "    "),
    ]);
    assert!(matches!(
        map_indent(&bent, "        ", None),
        Mapped::Undetermined(r) if r.len() > 1
    ));
    // Even at the level of a line kept as it is: without that line, the
    // scale through the bent one gives 20.
    assert!(matches!(
        map_indent(&bent, "            ", None),
        Mapped::Undetermined(r) if r.len() > 1
    ));
}

#[test]
fn indentations_read_as_counts() {
    assert_eq!(describe("      "), "6 spaces");
    assert_eq!(describe("\t"), "1 tab");
    assert_eq!(describe("  \t\t"), "2 spaces and 2 tabs");
}

#[test]
fn one_line_off_decides_only_where_the_readings_agree() {
    // The README's reply: one context line at 7 among lines at 4 and 8.
    let readme = pairs(&[
        ("    ", "    "),
        ("       ", "        "),
        ("        ", "        "),
    ]);
    assert_eq!(map_indent(&readme, "            ", None), Mapped::AsWritten);
    // Two levels, the deeper one bent: 12 without it, 10 from it.
    let two = pairs(&[("        ", "        "), ("          ", "        ")]);
    assert!(matches!(
        map_indent(&two, "            ", None),
        Mapped::Undetermined(r) if r.len() == 2
    ));
}

#[test]
fn a_reading_between_the_file_steps_is_none() {
    // Two context lines shifted alike, one of them mis-indented: 10 in a
    // file stepping by 4.
    let shifted = pairs(&[("    ", "        "), ("        ", "            ")]);
    assert_eq!(map_indent(&shifted, "      ", None), to(&" ".repeat(10)));
    assert_eq!(
        map_indent(&shifted, "      ", Some(4)),
        Mapped::OffGrid(" ".repeat(10))
    );
    // A scale seen on two levels, one on a single line: without it the
    // shift gives 6, between the steps of 4, so the scale stands.
    let twice = pairs(&[
        ("    ", "        "),
        ("    ", "        "),
        ("      ", "            "),
    ]);
    assert_eq!(map_indent(&twice, "  ", Some(4)), to("    "));
    assert!(matches!(
        map_indent(&twice, "  ", None),
        Mapped::Undetermined(_)
    ));
}

#[test]
fn the_grid_is_the_step_of_space_indentation_nearby() {
    let file = ["def f():", "    if x:", "        y()", "", "\tz()"];
    let text = |j: usize| Cow::Borrowed(file[j]);
    let around = indents_around((0, 1, file.len()), text);
    assert_eq!((around.step, around.only), (Some(4), None));
    let none = ["a", "\tb"];
    let around = indents_around((0, 2, 2), |j| Cow::Borrowed(none[j]));
    assert_eq!((around.step, around.only), (None, Some('\t')));
    let spaces = ["class A:", "    def f(self):", "        pass"];
    let around = indents_around((0, 1, 3), |j| Cow::Borrowed(spaces[j]));
    assert_eq!((around.step, around.only), (Some(4), Some(' ')));
}

#[test]
fn a_line_stripped_beside_a_line_at_column_0_is_no_level() {
    // `if ready:` at 0 as in the file, `start()` stripped from 4.
    let stripped = pairs(&[("", ""), ("", "    ")]);
    assert_eq!(map_indent(&stripped, "    ", Some(4)), Mapped::AsWritten);
    // An added line at column 0 is at the split level itself.
    assert_eq!(map_indent(&stripped, "", Some(4)), Mapped::Split(0, 1));
}

#[test]
fn a_line_cut_after_its_beginning_keeps_its_indentation() {
    let file = "    def close(self, key):";
    assert!(head_fragment("\tdef close(sel...", file));
    assert!(head_fragment("def close(sel\u{2026}", file));
    // A fragment of the line's end is indented where it was cut.
    assert!(!head_fragment("close(self, key):", file));
    assert!(!head_fragment("\tdef open(sel...", file));
}

#[test]
fn an_added_line_of_the_other_character_is_refused_unless_numbered() {
    use crate::model::{HunkLine, LineKind};
    let mut hunk = Hunk {
        lines: vec![
            HunkLine::new(LineKind::Context, "class Reader:"),
            HunkLine::new(LineKind::Add, "\tcache = {}"),
        ],
        ..Hunk::default()
    };
    let flush = pairs(&[("", "")]);
    let spaces = || Around {
        step: Some(4),
        only: Some(' '),
    };
    let added = AddedIndents::of(&hunk, &flush, spaces);
    assert_eq!(added.get("\t"), Some(&Mapped::OtherChar(' ')));
    assert!(added.unsettled(&hunk).is_some());
    // A file indented with both, or with tabs: as written.
    let mixed = || Around {
        step: Some(4),
        only: None,
    };
    assert_eq!(
        AddedIndents::of(&hunk, &flush, mixed).get("\t"),
        Some(&Mapped::AsWritten)
    );
    // A context line indented with a tab maps it.
    let tab = pairs(&[("", ""), ("\t", "    ")]);
    assert_eq!(
        AddedIndents::of(&hunk, &tab, spaces).get("\t"),
        Some(&to("    "))
    );
    // A numbered unified hunk is written as `git apply` writes it, and the
    // file is not read for it.
    hunk.new_start = Some(7);
    let unread = || -> Around { unreachable!("the file is not read") };
    let added = AddedIndents::of(&hunk, &flush, unread);
    assert_eq!(added.get("\t"), Some(&Mapped::AsWritten));
    assert!(added.unsettled(&hunk).is_none());
}
