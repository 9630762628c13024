//! What steers one plan: [`ApplyOptions`], with the named pieces it holds
//! ([`PathRule`], [`Pin`]). The fields are the crate's; callers use the
//! `with_…` setters and the getters, so a choice can be added without
//! breaking them.

use crate::locate::MatchOptions;
use crate::patch::ParseOptions;

/// Everything that steers one run.
///
/// The default detects the notation, strips `a/` and `b/`, and allows every
/// matching tier; each `with_…` setter changes one choice. Here the
/// strictest tier refuses what the default applies:
///
/// ```
/// use git_fuzzy_apply::{MatchOptions, Tier};
/// use git_fuzzy_apply::{apply_to_text, ApplyOptions};
///
/// let file = b"if ready:\n    start()\n";
/// // The context line lost its indentation.
/// let patch = b"--- a/run.py\n+++ b/run.py\n@@\n if ready:\n-start()\n+    start(fast=True)\n";
/// assert!(apply_to_text(patch, file, &ApplyOptions::default()).is_ok());
///
/// let exact = ApplyOptions::default().with_matching(MatchOptions::default().with_max_tier(Tier::Exact));
/// assert_eq!(exact.matching().max_tier(), Tier::Exact);
/// assert!(apply_to_text(patch, file, &exact).is_err());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ApplyOptions {
    /// Parsing options (format, `-p`, `--target`).
    pub(crate) parse: ParseOptions,
    /// Matching options (similarity threshold, strictest tier).
    pub(crate) matching: MatchOptions,
    /// `--directory`: prepended to every path of the patch.
    pub(crate) directory: Option<String>,
    /// `--include`/`--exclude` rules in order; the first that matches a
    /// path decides; with any include rule, unmatched paths are skipped (as
    /// `git apply` does).
    pub(crate) path_rules: Vec<PathRule>,
    /// `-R`: apply the patch in reverse.
    pub(crate) reverse: bool,
    /// `--partial`: plan the hunks that apply even when others fail.
    pub(crate) partial: bool,
    /// `--at FILE:LINE`: pin a hunk of FILE whose candidates include LINE to it.
    pub(crate) pins: Vec<Pin>,
}

impl ApplyOptions {
    /// Sets how the patch is parsed (format, `-p`, `--target`).
    ///
    /// ```
    /// use git_fuzzy_apply::{apply_to_text, ApplyOptions, ParseOptions};
    ///
    /// // A bare SEARCH/REPLACE block names no file; `apply_to_text` needs one.
    /// let block = b"<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n";
    /// let options = ApplyOptions::default().with_parse(ParseOptions::default().with_target("t.txt"));
    /// assert_eq!(options.parse().target(), Some("t.txt"));
    /// assert_eq!(apply_to_text(block, b"old\n", &options).unwrap(), b"new\n");
    /// ```
    pub fn with_parse(mut self, parse: ParseOptions) -> Self {
        self.parse = parse;
        self
    }

    /// Sets how hunks are matched (threshold, strictest tier, limits).
    ///
    /// ```
    /// use git_fuzzy_apply::{ApplyOptions, MatchOptions};
    ///
    /// let options = ApplyOptions::default().with_matching(MatchOptions::default().with_similarity_threshold(0.95));
    /// assert_eq!(options.matching().similarity_threshold(), 0.95);
    /// ```
    pub fn with_matching(mut self, matching: MatchOptions) -> Self {
        self.matching = matching;
        self
    }

    /// Prepends `directory` to every path of the patch (`--directory`).
    ///
    /// ```
    /// use git_fuzzy_apply::{plan_patch, ApplyOptions};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("sub")).unwrap();
    /// std::fs::write(dir.path().join("sub/a.txt"), "a\n").unwrap();
    /// let options = ApplyOptions::default().with_directory("sub");
    /// assert_eq!(options.directory(), Some("sub"));
    /// let plan = plan_patch(b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+b\n", dir.path(), &options).unwrap();
    /// assert_eq!(plan.results().next().unwrap().new_path.as_deref(), Some("sub/a.txt"));
    /// ```
    pub fn with_directory(mut self, directory: impl Into<String>) -> Self {
        self.directory = Some(directory.into());
        self
    }

    /// Adds a `--include`/`--exclude` rule after those already given: the
    /// first rule whose glob matches a path decides; with any include rule,
    /// paths no rule matches are skipped (as `git apply` does).
    ///
    /// ```
    /// use git_fuzzy_apply::{plan_patch, ApplyOptions, PathRule};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    /// std::fs::write(dir.path().join("b.md"), "b\n").unwrap();
    /// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+A\n--- a/b.md\n+++ b/b.md\n@@\n-b\n+B\n";
    /// let options = ApplyOptions::default().with_path_rule(PathRule::Include("*.md".into()));
    /// assert_eq!(options.path_rules(), [PathRule::Include("*.md".into())]);
    /// let plan = plan_patch(patch, dir.path(), &options).unwrap();
    /// let paths: Vec<_> = plan.results().map(|r| r.new_path.clone().unwrap()).collect();
    /// assert_eq!(paths, ["b.md"]);
    /// ```
    pub fn with_path_rule(mut self, rule: PathRule) -> Self {
        self.path_rules.push(rule);
        self
    }

    /// Applies the patch in reverse (`-R`) when `reverse`.
    ///
    /// ```
    /// use git_fuzzy_apply::{apply_to_text, ApplyOptions};
    ///
    /// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n";
    /// let reverse = ApplyOptions::default().with_reverse(true);
    /// assert!(reverse.reverse());
    /// assert_eq!(apply_to_text(patch, b"new\n", &reverse).unwrap(), b"old\n");
    /// ```
    pub fn with_reverse(mut self, reverse: bool) -> Self {
        self.reverse = reverse;
        self
    }

    /// Plans the hunks that apply even when others fail (`--partial`) when
    /// `partial`.
    ///
    /// ```
    /// use git_fuzzy_apply::{plan_patch, ApplyOptions};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "a\nb\n").unwrap();
    /// let patch = b"--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+A\n@@\n-nope\n+x\n";
    /// let partial = ApplyOptions::default().with_partial(true);
    /// assert!(partial.partial());
    /// let plan = plan_patch(patch, dir.path(), &partial).unwrap();
    /// assert_eq!(&*plan.results().next().unwrap().new_bytes(), b"A\nb\n");
    /// ```
    pub fn with_partial(mut self, partial: bool) -> Self {
        self.partial = partial;
        self
    }

    /// Adds a pin (`--at FILE:LINE`) after those already given.
    ///
    /// ```
    /// use git_fuzzy_apply::{ApplyOptions, Pin};
    ///
    /// let options = ApplyOptions::default().with_pin(Pin::new("a.txt", 3)).with_pin(Pin::new("b.txt", 1));
    /// assert_eq!(options.pins(), [Pin::new("a.txt", 3), Pin::new("b.txt", 1)]);
    /// ```
    pub fn with_pin(mut self, pin: Pin) -> Self {
        self.pins.push(pin);
        self
    }

    /// How the patch is parsed.
    ///
    /// ```
    /// use git_fuzzy_apply::ApplyOptions;
    ///
    /// assert_eq!(ApplyOptions::default().parse().strip(), None);
    /// ```
    pub fn parse(&self) -> &ParseOptions {
        &self.parse
    }

    /// How hunks are matched.
    ///
    /// ```
    /// use git_fuzzy_apply::{ApplyOptions, Tier};
    ///
    /// assert_eq!(ApplyOptions::default().matching().max_tier(), Tier::Similarity);
    /// ```
    pub fn matching(&self) -> &MatchOptions {
        &self.matching
    }

    /// The directory prepended to every path, if any.
    ///
    /// ```
    /// use git_fuzzy_apply::ApplyOptions;
    ///
    /// assert_eq!(ApplyOptions::default().directory(), None);
    /// assert_eq!(ApplyOptions::default().with_directory("sub").directory(), Some("sub"));
    /// ```
    pub fn directory(&self) -> Option<&str> {
        self.directory.as_deref()
    }

    /// The `--include`/`--exclude` rules, in order.
    ///
    /// ```
    /// use git_fuzzy_apply::{ApplyOptions, PathRule};
    ///
    /// let options = ApplyOptions::default()
    ///     .with_path_rule(PathRule::Exclude("*.lock".into()))
    ///     .with_path_rule(PathRule::Include("src/*".into()));
    /// assert_eq!(options.path_rules().iter().map(PathRule::glob).collect::<Vec<_>>(), ["*.lock", "src/*"]);
    /// ```
    pub fn path_rules(&self) -> &[PathRule] {
        &self.path_rules
    }

    /// True when the patch is applied in reverse.
    ///
    /// ```
    /// use git_fuzzy_apply::ApplyOptions;
    ///
    /// assert!(!ApplyOptions::default().reverse());
    /// ```
    pub fn reverse(&self) -> bool {
        self.reverse
    }

    /// True when the hunks that apply are planned even when others fail.
    ///
    /// ```
    /// use git_fuzzy_apply::ApplyOptions;
    ///
    /// assert!(!ApplyOptions::default().partial());
    /// ```
    pub fn partial(&self) -> bool {
        self.partial
    }

    /// The pins, in order.
    ///
    /// ```
    /// use git_fuzzy_apply::ApplyOptions;
    ///
    /// assert!(ApplyOptions::default().pins().is_empty());
    /// ```
    pub fn pins(&self) -> &[Pin] {
        &self.pins
    }
}

/// One `--include` or `--exclude` rule: a glob matched against the path of
/// each file of the patch (after `--directory`), as `git apply` does.
///
/// ```
/// use git_fuzzy_apply::PathRule;
///
/// let rule = PathRule::Exclude("*.min.js".into());
/// assert_eq!((rule.glob(), rule.includes()), ("*.min.js", false));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathRule {
    /// `--include=GLOB`: a matching path is patched.
    Include(String),
    /// `--exclude=GLOB`: a matching path is skipped.
    Exclude(String),
}

impl PathRule {
    /// The glob.
    ///
    /// ```
    /// use git_fuzzy_apply::PathRule;
    ///
    /// assert_eq!(PathRule::Include("docs/*".into()).glob(), "docs/*");
    /// ```
    pub fn glob(&self) -> &str {
        match self {
            PathRule::Include(glob) | PathRule::Exclude(glob) => glob,
        }
    }

    /// True for an include rule.
    ///
    /// ```
    /// use git_fuzzy_apply::PathRule;
    ///
    /// assert!(PathRule::Include("docs/*".into()).includes());
    /// assert!(!PathRule::Exclude("docs/*".into()).includes());
    /// ```
    pub fn includes(&self) -> bool {
        matches!(self, PathRule::Include(_))
    }
}

/// One `--at FILE:LINE`: a hunk of FILE whose candidates include LINE
/// (1-based, in the original file) goes there.
///
/// ```
/// use git_fuzzy_apply::{apply_to_text, ApplyOptions, Pin};
///
/// // `return x` stands twice; the pin says which.
/// let file = b"def a(x):\n    return x\n\ndef b(x):\n    return x\n";
/// let patch = b"--- a/m.py\n+++ b/m.py\n@@\n-    return x\n+    return x + 1\n";
/// let pin = Pin::new("m.py", 5);
/// assert_eq!((pin.path(), pin.line()), ("m.py", 5));
/// let out = apply_to_text(patch, file, &ApplyOptions::default().with_pin(pin)).unwrap();
/// assert_eq!(out, b"def a(x):\n    return x\n\ndef b(x):\n    return x + 1\n");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    path: String,
    line: usize,
}

impl Pin {
    /// Pins a hunk of `path` to `line` (1-based).
    ///
    /// ```
    /// use git_fuzzy_apply::Pin;
    ///
    /// assert_eq!(Pin::new(String::from("src/lib.rs"), 10), Pin::new("src/lib.rs", 10));
    /// ```
    pub fn new(path: impl Into<String>, line: usize) -> Self {
        Pin {
            path: path.into(),
            line,
        }
    }

    /// The file, as the patch names it.
    ///
    /// ```
    /// use git_fuzzy_apply::Pin;
    ///
    /// assert_eq!(Pin::new("src/lib.rs", 10).path(), "src/lib.rs");
    /// ```
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The line (1-based).
    ///
    /// ```
    /// use git_fuzzy_apply::Pin;
    ///
    /// assert_eq!(Pin::new("src/lib.rs", 10).line(), 10);
    /// ```
    pub fn line(&self) -> usize {
        self.line
    }
}
