//! Fuzz target `apply`: the matcher on (file, patch) pairs. The input is
//! `options byte, patch bytes, 0xFF, file bytes`; 0xFF never occurs in UTF-8,
//! so the split costs the patch nothing. `apply_to_text` must return a
//! result or a typed error, never panic or hang.

#![no_main]

use git_fuzzy_apply::model::PatchFormat;
use git_fuzzy_apply::{ApplyOptions, MatchOptions, ParseOptions, Tier, apply_to_text};
use libfuzzer_sys::fuzz_target;

/// Options chosen by the first input byte: forced format, strictest tier, threshold.
fn options(byte: u8) -> ApplyOptions {
    let format = match byte % 5 {
        0 => None,
        1 => Some(PatchFormat::UnifiedDiff),
        2 => Some(PatchFormat::NumberlessDiff),
        3 => Some(PatchFormat::CodexEnvelope),
        _ => Some(PatchFormat::SearchReplace),
    };
    let max_tier = match (byte / 5) % 5 {
        0 => Tier::Similarity,
        1 => Tier::Exact,
        2 => Tier::Resilient,
        3 => Tier::Fuzzy,
        _ => Tier::Structural,
    };
    ApplyOptions::default()
        .with_parse(
            ParseOptions::default()
                .with_format(format)
                .with_target("t.txt"),
        )
        .with_matching(
            MatchOptions::default()
                .with_similarity_threshold(if byte >= 128 { 0.5 } else { 0.9 })
                .with_max_tier(max_tier),
        )
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let (patch, file) = match rest.iter().position(|&b| b == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let _ = apply_to_text(patch, file, &options(first));
});
