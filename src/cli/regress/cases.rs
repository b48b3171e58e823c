//! The cases `regress` runs and what each expects: the models, test.desc files and manifests
//! found under the paths, and the expectations read from headers, test.desc files, manifests
//! and Getafix file names.

use crate::report::exit;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What a model is expected to give.
#[derive(Clone, Debug)]
pub(super) enum Want {
    /// A verdict kind (`passed`, `assertion-failed`, `target-reached`, `bounded`, ...).
    Kind(String),
    /// An exit code (0 = safe, 3 = unsafe, 8 = bounded, ...).
    Exit(i32),
    /// Rejected by the front end.
    Invalid {
        message: Option<String>,
        code: Option<String>,
        errors: Option<usize>,
    },
}

/// A model to run.
#[derive(Clone, Debug)]
pub(super) struct Case {
    pub(super) model: PathBuf,
    /// Where the expectation comes from: `header`, `test.desc`, `manifest`, `file name`.
    pub(super) source: &'static str,
    pub(super) options: Vec<String>,
    /// The expectation as written, and its meaning.
    pub(super) expected: Option<(String, Want)>,
    /// A problem found while reading the expectation (the row fails).
    pub(super) problem: Option<String>,
    /// Why the case is not run (the row is skipped).
    pub(super) skip: Option<String>,
    /// ZING's "distinct states explored" for the model (`zing-states:`).
    pub(super) zing_states: Option<u64>,
}

/// The `// key: value` header of a model (regressions/README.md).
#[derive(Default)]
pub(super) struct Header {
    expect: Option<String>,
    pub(super) options: Vec<String>,
    message: Option<String>,
    code: Option<String>,
    errors: Option<usize>,
    zing_states: Option<u64>,
}

pub(super) fn header(text: &str) -> Header {
    let mut h = Header::default();
    for line in text.lines() {
        let t = line.trim();
        let Some(rest) = t.strip_prefix("//") else {
            if t.is_empty() {
                continue;
            }
            break;
        };
        let rest = rest.trim();
        let value = |k: &str| rest.strip_prefix(k).map(|v| v.trim().to_string());
        if let Some(v) = value("expect:") {
            h.expect = Some(v);
        } else if let Some(v) = value("options:") {
            h.options = option_words(&v);
        } else if let Some(v) = value("message:") {
            h.message = Some(v);
        } else if let Some(v) = value("code:") {
            h.code = Some(v);
        } else if let Some(v) = value("errors:") {
            h.errors = v.parse().ok();
        } else if let Some(v) = value("zing-states:") {
            h.zing_states = v.parse().ok();
        }
    }
    h
}

/// Reads an expected result as a header, a manifest or a test.desc writes it.
fn parse_want(s: &str) -> Option<Want> {
    let t = s.trim().trim_end_matches('.').trim();
    let t = t.trim_start_matches('^').trim_end_matches('$');
    let lower = t.to_ascii_lowercase();
    Some(match lower.as_str() {
        "passed" | "assertion-failed" | "target-reached" | "bounded" | "deadlock"
        | "runtime-error" | "liveness-violated" => Want::Kind(lower),
        "invalid" => Want::Invalid {
            message: None,
            code: None,
            errors: None,
        },
        "reachable"
        | "yes"
        | "unsafe"
        | "verification failed"
        | "failed"
        | "fail"
        | "error"
        | "true" => Want::Exit(exit::ASSERTION),
        "unreachable"
        | "no"
        | "safe"
        | "verification successful"
        | "successful"
        | "pass"
        | "ok"
        | "false" => Want::Exit(exit::PASSED),
        _ => Want::Exit(lower.parse().ok()?),
    })
}

/// Maps Boppo's `-l LABEL` to `--target LABEL`; other options pass through.
fn map_label_options(tokens: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if (tokens[i] == "-l" || tokens[i] == "--label") && i + 1 < tokens.len() {
            out.push("--target".into());
            out.push(tokens[i + 1].clone());
            i += 2;
        } else {
            out.push(tokens[i].clone());
            i += 1;
        }
    }
    out
}

/// The words of an `// options:` line: separated by blanks, except inside single or double
/// quotes, which group a word with blanks in it (`--ltl 'G F @L'`) and are dropped.
pub fn option_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

/// The options of a model's `// options:` header line (empty if none).
pub fn header_options(text: &str) -> Vec<String> {
    header(text).options
}

fn header_case(model: &Path, text: &str) -> Case {
    let h = header(text);
    let mut case = Case {
        model: model.to_path_buf(),
        source: "header",
        options: h.options.clone(),
        expected: None,
        problem: None,
        skip: None,
        zing_states: h.zing_states,
    };
    if let Some(e) = &h.expect {
        match parse_want(e) {
            Some(Want::Invalid { .. }) => {
                case.expected = Some((
                    e.clone(),
                    Want::Invalid {
                        message: h.message,
                        code: h.code,
                        errors: h.errors,
                    },
                ))
            }
            Some(w) => case.expected = Some((e.clone(), w)),
            None => case.problem = Some(format!("unknown expected verdict `{e}`")),
        }
        return case;
    }
    // Getafix: an underscore-delimited `safe` / `unsafe` token in the file name (§7.2)
    let stem = model.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let tokens: Vec<&str> = stem.split(['_', '-', '.']).collect();
    let marker = if tokens.contains(&"unsafe") {
        Some(("unsafe", exit::ASSERTION))
    } else if tokens.contains(&"safe") {
        Some(("safe", exit::PASSED))
    } else {
        None
    };
    if let Some((word, code)) = marker {
        case.source = "file name";
        case.options = vec![
            "--target".into(),
            "SLIC_ERROR".into(),
            "--no-assertions".into(),
        ];
        case.expected = Some((word.into(), Want::Exit(code)));
    }
    case
}

/// Reads a CBMC/SatAbs `test.desc`; the options zingrs does not need go to `ignored`.
fn desc_case(desc: &Path, ignored: &Mutex<BTreeSet<String>>) -> Case {
    let dir = desc.parent().unwrap_or(Path::new("."));
    let text = std::fs::read_to_string(desc).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    // line 2: the model (anything after it on the line is taken as options)
    let line2: Vec<&str> = lines
        .get(1)
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    let file = line2.first().copied().unwrap_or("");
    let mut case = Case {
        model: dir.join(file),
        source: "test.desc",
        options: Vec::new(),
        expected: None,
        problem: None,
        skip: None,
        zing_states: None,
    };
    if file.is_empty() {
        case.model = desc.to_path_buf();
        case.problem = Some("test.desc names no model on line 2".into());
        return case;
    }
    let level = lines.first().map(|l| l.trim()).unwrap_or("");
    if matches!(level, "KNOWNBUG" | "FUTURE" | "BROKEN") {
        case.skip = Some(format!(
            "test level {level} is not run (only CORE, THOROUGH)"
        ));
        return case;
    }
    let tokens: Vec<String> = line2[1.min(line2.len())..]
        .iter()
        .copied()
        .chain(lines.get(2).map_or("", |l| l.trim()).split_whitespace())
        .map(String::from)
        .collect();
    let mut i = 0;
    while i < tokens.len() {
        if (tokens[i] == "-l" || tokens[i] == "--label") && i + 1 < tokens.len() {
            case.options.push("--target".into());
            case.options.push(tokens[i + 1].clone());
            i += 2;
        } else {
            ignored
                .lock()
                .expect("ignored options")
                .insert(tokens[i].clone());
            i += 1;
        }
    }
    for l in lines.iter().skip(3) {
        let t = l.trim();
        if t == "--" {
            break;
        }
        let want = if t.contains("VERIFICATION SUCCESSFUL") {
            Some(exit::PASSED)
        } else if t.contains("VERIFICATION FAILED") {
            Some(exit::ASSERTION)
        } else {
            None
        };
        if let Some(w) = want {
            let shown = if w == exit::PASSED {
                "VERIFICATION SUCCESSFUL"
            } else {
                "VERIFICATION FAILED"
            };
            if case.expected.as_ref().is_some_and(|(s, _)| s != shown) {
                case.problem = Some("test.desc expects both SUCCESSFUL and FAILED".into());
            }
            case.expected = Some((shown.into(), Want::Exit(w)));
        }
    }
    case
}

/// Splits one CSV line (double quotes protect commas; `""` is a quote), with the `csv` crate.
fn split_csv(line: &str) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    match reader.records().next() {
        Some(Ok(record)) => record.iter().map(String::from).collect(),
        // a line the reader cannot split (it reads UTF-8 from a &str, so this does not happen)
        _ => vec![line.to_string()],
    }
}

/// Reads a manifest: `model <sep> options <sep> expected [<sep> note]`, or `model <sep>
/// expected`; `#` starts a comment line; a first row starting with `model` is a header.
fn manifest_cases(path: &Path) -> Vec<Case> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let tsv = path.extension().is_some_and(|x| x == "tsv");
    let mut cases = Vec::new();
    let mut first = true;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let fields: Vec<String> = if tsv {
            line.split('\t').map(|f| f.trim().to_string()).collect()
        } else {
            split_csv(line)
                .iter()
                .map(|f| f.trim().to_string())
                .collect()
        };
        let header_row = first && fields[0].eq_ignore_ascii_case("model");
        first = false;
        if header_row {
            continue;
        }
        let (options, expected) = match fields.len() {
            0 | 1 => (String::new(), None),
            2 => (String::new(), Some(fields[1].clone())),
            _ => (fields[1].clone(), Some(fields[2].clone())),
        };
        let tokens: Vec<String> = options.split_whitespace().map(String::from).collect();
        let mut case = Case {
            model: dir.join(&fields[0]),
            source: "manifest",
            options: map_label_options(&tokens),
            expected: None,
            problem: None,
            skip: None,
            zing_states: None,
        };
        match expected {
            None => {
                case.problem = Some(format!(
                    "{}:{}: a manifest row needs model, options and expected",
                    path.display(),
                    n + 1
                ))
            }
            Some(e) => match parse_want(&e) {
                Some(w) => case.expected = Some((e, w)),
                None => {
                    case.problem = Some(format!(
                        "{}:{}: unknown expected result `{e}`",
                        path.display(),
                        n + 1
                    ))
                }
            },
        }
        cases.push(case);
    }
    cases
}

fn is_model(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "bp" || x == "zing")
}

/// A CPROVER test description: `test.desc`, or any `*.desc` (as `test.pl` reads them).
fn is_desc(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "desc")
}

fn is_manifest(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "tsv" || x == "csv")
}

/// Collects model files, test.desc files and manifests under `p`.
fn walk(
    p: &Path,
    models: &mut Vec<PathBuf>,
    descs: &mut BTreeSet<PathBuf>,
    manifests: &mut Vec<PathBuf>,
) {
    if p.is_dir() {
        // depth first, each directory's entries by name: a stable order on every machine
        let entries = walkdir::WalkDir::new(p)
            .follow_links(true)
            .sort_by_file_name()
            .into_iter()
            .flatten();
        for e in entries {
            if e.file_type().is_dir() {
                continue;
            }
            let e = e.into_path();
            if is_desc(&e) {
                descs.insert(e);
            } else if is_manifest(&e) {
                manifests.push(e);
            } else if is_model(&e) {
                models.push(e);
            }
        }
    } else if is_desc(p) {
        descs.insert(p.to_path_buf());
    } else if is_manifest(p) {
        manifests.push(p.to_path_buf());
    } else {
        // a model named directly: its directory's test.desc may hold its expectation
        if let Some(d) = p
            .parent()
            .map(|d| d.join("test.desc"))
            .filter(|d| d.is_file())
        {
            descs.insert(d);
        }
        models.push(p.to_path_buf());
    }
}

fn key(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Every case under the paths, in a stable order; also the test.desc options ignored.
pub(super) fn discover(paths: &[PathBuf]) -> (Vec<Case>, BTreeSet<String>) {
    let (mut models, mut descs, mut manifests) = (Vec::new(), BTreeSet::new(), Vec::new());
    for p in paths {
        walk(p, &mut models, &mut descs, &mut manifests);
    }
    let ignored = Mutex::new(BTreeSet::new());
    let mut cases = Vec::new();
    let mut claimed = HashSet::new();
    for d in &descs {
        let c = desc_case(d, &ignored);
        claimed.insert(key(&c.model));
        cases.push(c);
    }
    for m in &manifests {
        for c in manifest_cases(m) {
            claimed.insert(key(&c.model));
            cases.push(c);
        }
    }
    let mut seen = HashSet::new();
    for m in models {
        let k = key(&m);
        if claimed.contains(&k) || !seen.insert(k) {
            continue;
        }
        let text = std::fs::read(&m)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        cases.push(header_case(&m, &text));
    }
    (cases, ignored.into_inner().expect("ignored options"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_group_option_words() {
        assert_eq!(
            option_words(r#" --ltl 'G (x -> F y)' --target  L --ltl="a b" '' "#),
            ["--ltl", "G (x -> F y)", "--target", "L", "--ltl=a b", ""]
        );
    }

    #[test]
    fn expected_results_in_every_spelling() {
        for s in [
            "reachable",
            "YES",
            "YES.",
            "unsafe",
            "VERIFICATION FAILED",
            "3",
        ] {
            assert!(matches!(parse_want(s), Some(Want::Exit(3))), "{s}");
        }
        for s in [
            "unreachable",
            "NO.",
            "safe",
            "^VERIFICATION SUCCESSFUL$",
            "0",
        ] {
            assert!(matches!(parse_want(s), Some(Want::Exit(0))), "{s}");
        }
        assert!(matches!(parse_want("target-reached"), Some(Want::Kind(_))));
        assert!(parse_want("maybe").is_none());
    }

    #[test]
    fn csv_quotes_and_label_options() {
        assert_eq!(split_csv(r#"a.bp,"-l X, y",NO"#), ["a.bp", "-l X, y", "NO"]);
        let t: Vec<String> = ["-l", "SLIC_ERROR", "--no-assertions"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            map_label_options(&t),
            ["--target", "SLIC_ERROR", "--no-assertions"]
        );
    }
}
