use super::*;
use crate::patch::{ParseOptions, parse_patch};

/// git's base85 encoding of one line (`base85.c`'s `encode_85`).
fn encode_line(bytes: &[u8]) -> String {
    let count = bytes.len();
    let mut out = String::new();
    out.push(if count <= 26 {
        char::from(b'A' + count as u8 - 1)
    } else {
        char::from(b'a' + count as u8 - 27)
    });
    for chunk in bytes.chunks(4) {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        let mut acc = u32::from_be_bytes(word);
        let mut group = [0u8; 5];
        for slot in group.iter_mut().rev() {
            *slot = ALPHABET[(acc % 85) as usize];
            acc /= 85;
        }
        out.push_str(std::str::from_utf8(&group).unwrap());
    }
    out
}

#[test]
fn base85_round_trips_every_line_length() {
    for len in 1..=52usize {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 97 + len) as u8).collect();
        let line = encode_line(&bytes);
        assert_eq!(decode_line(&line).unwrap(), bytes, "length {len}");
    }
}

#[test]
fn base85_decodes_gits_own_line() {
    // `printf 'h\0i' | git diff --binary`'s literal, deflated.
    let bytes = decode_line("Kcmc~`$OHfZqyW+Y").unwrap();
    assert_eq!(bytes.len(), 11);
    assert_eq!(inflate(&bytes, 3).unwrap(), b"h\0i");
}

#[test]
fn malformed_base85_lines_are_typed_errors() {
    assert_eq!(decode_line("1abcde"), Err(Base85Error::Length('1')));
    assert!(matches!(
        decode_line("Aabc"),
        Err(Base85Error::Size {
            chars: 3,
            bytes: 1,
            needed: 5
        })
    ));
    // Cut short: 8 bytes need 10 characters.
    assert!(matches!(
        decode_line("H0123456"),
        Err(Base85Error::Size { .. })
    ));
    assert_eq!(
        decode_line("A01 34"),
        Err(Base85Error::Character { column: 4, ch: ' ' })
    );
    assert_eq!(
        decode_line("A\"0000"),
        Err(Base85Error::Character { column: 2, ch: '"' })
    );
    // `~~~~~` is 85^5 - 1, above 2^32 - 1.
    assert_eq!(
        decode_line("A~~~~~"),
        Err(Base85Error::Overflow { column: 2 })
    );
    assert!(decode_line("A\u{e9}000").is_err());
}

#[test]
fn inflate_checks_the_declared_size() {
    let deflated = decode_line("Kcmc~`$OHfZqyW+Y").unwrap();
    assert!(matches!(
        inflate(&deflated, 2),
        Err(InflateError::Size { declared: 2, .. })
    ));
    assert!(matches!(
        inflate(&deflated, 4),
        Err(InflateError::Size {
            declared: 4,
            got: 3
        })
    ));
    assert!(matches!(
        inflate(&deflated, 1 << 40),
        Err(InflateError::TooLarge { .. })
    ));
    assert_eq!(inflate(b"not zlib", 3), Err(InflateError::Corrupt));
    assert!(inflate(&deflated[..6], 3).is_err());
    assert!(inflate(&[], 0).is_err());
}

const HEAD: &str = "diff --git a/x b/x\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..6661c15c0c94a388083c28e99447c44f1ac8638c\nGIT binary patch\n";

fn parse_err(text: &str) -> (usize, String) {
    crate::patch::test_util::malformed(parse_patch(text.as_bytes(), &ParseOptions::default()))
}

#[test]
fn sections_parse_with_and_without_the_reverse_hunk() {
    let full = format!("{HEAD}literal 3\nKcmc~`$OHfZqyW+Y\n\nliteral 0\nHcmV?d00001\n\n");
    let patch = parse_patch(full.as_bytes(), &ParseOptions::default()).unwrap();
    let bin = patch.files[0].binary.as_ref().unwrap();
    assert_eq!(bin.forward.data, b"h\0i");
    assert_eq!(bin.reverse.as_ref().unwrap().data, b"");
    // No reverse hunk, no final blank line.
    let short = format!("{HEAD}literal 3\nKcmc~`$OHfZqyW+Y");
    let patch = parse_patch(short.as_bytes(), &ParseOptions::default()).unwrap();
    assert!(patch.files[0].binary.as_ref().unwrap().reverse.is_none());
}

#[test]
fn malformed_sections_name_the_file_and_line() {
    let (line, msg) = parse_err(&format!("{HEAD}literal 3\nKcmc~`$OHfZqyW+\n\n"));
    assert_eq!(line, 6, "{msg}");
    assert!(
        msg.contains("x: the forward binary hunk (patch line 5)"),
        "{msg}"
    );
    let (line, msg) = parse_err(&format!("{HEAD}literal 4\nKcmc~`$OHfZqyW+Y\n\n"));
    assert_eq!(line, 5);
    assert!(msg.contains("inflates to 3 bytes, not the 4"), "{msg}");
    let (line, msg) = parse_err(&format!("{HEAD}literal x\nKcmc~`$OHfZqyW+Y\n\n"));
    assert_eq!(line, 5);
    assert!(msg.contains("is not a number"), "{msg}");
    let (line, msg) = parse_err(&format!("{HEAD}literal 3\n\n"));
    assert_eq!(line, 5);
    assert!(msg.contains("no data lines"), "{msg}");
    let (line, msg) = parse_err(&format!("{HEAD}garbage\n"));
    assert_eq!(line, 4);
    assert!(msg.contains("not followed by"), "{msg}");
    let (_, msg) = parse_err(&format!(
        "{HEAD}literal 3\nKcmc~`$OHfZqyW+Y\n\nliteral 0\nHcmV?d0000\n\n"
    ));
    assert!(msg.contains("reverse binary hunk"), "{msg}");
}

#[test]
fn binary_files_differ_asks_for_git_diff_binary() {
    let (line, msg) = parse_err(
        "diff --git a/x b/x\nindex 6b49526..e42d0ca 100644\nBinary files a/x and b/x differ\n",
    );
    assert_eq!(line, 3);
    assert!(msg.contains("git diff --binary"), "{msg}");
}
