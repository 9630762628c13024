//! `-R`: a file patch turned into the one that undoes it (sides, hints,
//! the readings a hunk carries, end-of-file marks).

use crate::model::{FileOp, FilePatch, LineKind};

/// Turns a file patch into the one that undoes it.
pub(super) fn reverse_file(file: &mut FilePatch) {
    file.op = match file.op {
        FileOp::Add => FileOp::Delete,
        FileOp::Delete => FileOp::Add,
        FileOp::Update => FileOp::Update,
    };
    if let Some(to) = file.move_to.take() {
        file.move_to = Some(std::mem::replace(&mut file.path, to));
    }
    file.blob_ids = file.blob_ids.take().map(crate::model::BlobIds::reversed);
    super::binary::reverse(file);
    // The modes swap sides when the patch gives both, or when the file
    // is created or deleted (an `index` line's mode stands for both).
    if file.op != FileOp::Update || (file.old_mode.is_some() && file.new_mode.is_some()) {
        std::mem::swap(&mut file.old_mode, &mut file.new_mode);
    }
    // Reversed, a patch that creates a missing file removes its lines from
    // one that must exist: nothing is created.
    file.create_if_missing = false;
    file.written_as_new = false;
    reverse_hints(&mut file.hunks);
    for hunk in &mut file.hunks {
        // A block's decoded reading has as many old and new lines as the
        // block (decoding joins no lines): its hints reverse alike.
        let (hint, new_start) = (hunk.line_hint, hunk.new_start);
        let Ok(()) = hunk.each_reading(|reading| {
            (reading.line_hint, reading.new_start) = (hint, new_start);
            reading.end_hint = None;
            reading.view_start = None;
            reverse_hunk(reading);
            Ok::<(), std::convert::Infallible>(())
        });
    }
}

/// Swaps a hunk's removed and added lines (and its elision pieces'); an
/// elision that does not pair is dropped: reversed, its lines are removed
/// lines, which the file must hold as written.
fn reverse_hunk(hunk: &mut crate::model::Hunk) {
    match hunk.elision.as_deref_mut().map(|e| &mut e.pieces) {
        Some(Ok(pieces)) => pieces.iter_mut().for_each(reverse_hunk),
        Some(Err(_)) => hunk.elision = None,
        None => {}
    }
    reverse_lines(&mut hunk.lines);
    // The lines as written, before a line-number view was stripped, are
    // tried first: they must be reversed too, or they would be sought in
    // the forward direction.
    if let Some(written) = hunk.as_written.as_mut() {
        reverse_lines(written);
    }
    // Where the prefixes were stripped from SEARCH only, the lines as
    // written look for the same old lines (REPLACE's) and would write the
    // prefixes back: the stripped reading is the one reversed.
    let old_side = |lines: &[crate::model::HunkLine]| -> Vec<String> {
        let old = lines.iter().filter(|l| l.is_old());
        old.map(|l| l.text.to_string()).collect()
    };
    if hunk
        .as_written
        .as_deref()
        .is_some_and(|w| old_side(w) == old_side(&hunk.lines))
    {
        hunk.as_written = None;
    }
    std::mem::swap(&mut hunk.old_missing_newline, &mut hunk.new_missing_newline);
    std::mem::swap(
        &mut hunk.old_missing_on_context,
        &mut hunk.new_missing_on_context,
    );
    std::mem::swap(&mut hunk.added_crlf, &mut hunk.removed_crlf);
    // Reversed, SEARCH's trailing blank line is an added line: nothing to
    // read at the end of the file.
    hunk.trailing_blank_search = false;
}

/// Swaps removed and added lines, keeping removed lines first within each
/// change.
fn reverse_lines(lines: &mut [crate::model::HunkLine]) {
    for line in lines.iter_mut() {
        line.kind = match line.kind {
            LineKind::Add => LineKind::Remove,
            LineKind::Remove => LineKind::Add,
            LineKind::Context => LineKind::Context,
        };
    }
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        while i < lines.len() && lines[i].kind != LineKind::Context {
            i += 1;
        }
        lines[start..i].sort_by_key(|l| l.kind != LineKind::Remove);
        i += 1;
    }
}

/// Turns each hunk's line hint (its old start) into its new start, the
/// old start of the reversed hunk, as `git diff` writes `+c,d`: the old
/// start moved by what the hunks before it added and removed; for a hunk
/// that only adds, the first added line; for one that only removes, the
/// line after which its lines stood (`-1 +0,0` reverses to `-0,0 +1`).
fn reverse_hints(hunks: &mut [crate::model::Hunk]) {
    let mut delta = 0isize;
    for hunk in hunks {
        // `:end_line:` and a numbered view's prefixes number the forward
        // old side: reversed, nothing.
        hunk.end_hint = None;
        hunk.view_start = None;
        let old = hunk.lines.iter().filter(|l| l.is_old()).count();
        let new = hunk.lines.iter().filter(|l| l.is_new()).count();
        if let Some(start) = hunk.line_hint {
            // Reversed, the old start as written is the new side's start.
            hunk.new_start = hunk.new_start.map(|_| start);
            let moved = start as isize + delta;
            let first = match (old, new) {
                (0, _) => moved + 1,
                (_, 0) => moved - 1,
                _ => moved,
            };
            hunk.line_hint = Some(first.max(0) as usize);
        }
        delta += new as isize - old as isize;
    }
}
