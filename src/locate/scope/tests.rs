use super::*;

/// The end of the block the anchor at line `anchor` of `text` opens.
fn end(text: &str, anchor: usize) -> Option<usize> {
    let lines: Vec<&[u8]> = text.lines().map(str::as_bytes).collect();
    block_end_by(lines.len(), |i| lines[i], anchor)
}

#[test]
fn a_key_anchor_ends_at_its_sibling_key() {
    let yaml = "jobs:\n  build:\n    runs-on: x\n  test:\n    runs-on: x\n";
    assert_eq!(end(yaml, 1), Some(3));
    // A shallower key ends it too.
    let yaml = "services:\n  web:\n    image: x\nvolumes:\n  data:\n";
    assert_eq!(end(yaml, 1), Some(3));
    // A nested key is inside.
    let yaml = "  web:\n    env:\n      A: 1\n    ports:\n  api:\n";
    assert_eq!(end(yaml, 0), Some(4));
}

#[test]
fn a_target_anchor_ends_at_the_next_target() {
    let make = "dist: build\n\ttar c out\n\ninstall:\n\tcp app bin\n";
    assert_eq!(end(make, 0), Some(3));
    assert_eq!(end(make, 3), Some(5));
}

#[test]
fn other_anchors_read_a_label_as_starting_nothing() {
    let cpp = "class A {\n  int n;\npublic:\n  void f();\n};\nint g;\n";
    assert_eq!(end(cpp, 0), Some(5));
    let py = "    if x:\n        a()\n    else:\n        b()\n    c()\n";
    assert_eq!(end(py, 0), Some(4));
    // `std::` is no key.
    let cpp = "std::vector<int> f() {\n  x();\nout:\n  y();\n}\nint g;\n";
    assert_eq!(end(cpp, 0), Some(5));
}

#[test]
fn a_section_header_opens_the_lines_at_its_own_column() {
    let ini = "[a]\nx = 1\n; [old]\n\n[b]\nx = 1\n";
    assert_eq!(end(ini, 0), Some(4));
    assert_eq!(end(ini, 4), Some(6));
    let toml = "[[bin]]\nname = \"a\"\n[[bin]]\nname = \"b\"\n";
    assert_eq!(end(toml, 0), Some(2));
    // A deeper header is inside; nothing but blank lines after: no block.
    let ini = "[a]\n  [a.b]\n  x = 1\n[c]\n";
    assert_eq!(end(ini, 0), Some(3));
    assert_eq!(end("[a]\n\n", 0), None);
}

#[test]
fn a_line_under_a_key_lies_in_a_block_that_ends_at_the_sibling_key() {
    let within = |text: &str, at: usize| {
        let lines: Vec<&[u8]> = text.lines().map(str::as_bytes).collect();
        enclosing_end_by(lines.len(), |i| lines[i], at)
    };
    let yaml = "services:\n  web:\n    image: x\n\n  api:\n    image: y\nvolumes:\n";
    assert_eq!(within(yaml, 2), Some(4));
    assert_eq!(within(yaml, 5), Some(6));
    let make = "dist: build\n\ttar c out\ninstall:\n\tcp app bin\n";
    assert_eq!(within(make, 1), Some(2));
    // Under another opener a label still starts nothing.
    let cpp = "class A {\n  void f();\npublic:\n  void g();\n};\nint h;\n";
    assert_eq!(within(cpp, 1), Some(5));
    let py = "def f():\n    if x:\n        a()\n    else:\n        b()\n";
    assert_eq!(within(py, 2), Some(5));
}
