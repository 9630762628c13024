//! Fuzz target `parse`: the format detector and every parser must return
//! `Ok` or a typed error for any bytes, never panic or hang, whether the
//! format is detected or forced, with and without `-p`/`--target`.

#![no_main]

use git_fuzzy_apply::model::PatchFormat;
use git_fuzzy_apply::{ParseOptions, parse_patch};
use libfuzzer_sys::fuzz_target;

/// Every `--format` choice, `None` being auto-detection.
const FORMATS: [Option<PatchFormat>; 5] = [
    None,
    Some(PatchFormat::UnifiedDiff),
    Some(PatchFormat::NumberlessDiff),
    Some(PatchFormat::CodexEnvelope),
    Some(PatchFormat::SearchReplace),
];

fuzz_target!(|data: &[u8]| {
    for format in FORMATS {
        let plain = ParseOptions::default().with_format(format);
        if let Ok(patch) = parse_patch(data, &plain) {
            // A successful parse always names at least one file.
            assert!(!patch.files.is_empty(), "Ok with no files");
        }
        let steered = ParseOptions::default()
            .with_format(format)
            .with_strip(1)
            .with_target("t.txt");
        let _ = parse_patch(data, &steered);
    }
});
