//! `zingrs replay MODEL REPORT.json`: re-executes a counterexample saved with `check -o FILE`
//! (or `--format json`), checks that it is a counterexample of this model that ends in exactly
//! the reported verdict, and shows it as `check` does.
//!
//! The report is read with a typed, streaming reader that skips the trace (a million-step
//! report is gigabytes of JSON; only the path is needed), and the replay keeps every state only
//! when the trace is printed.

use crate::report::fold::{Fold, Item};
use crate::report::{self, exit, Claim, Format, Report, Shown, Shows, Trace, TraceDetail};
use crate::runtime::{Machine, RtError, Semantics};
use crate::search;
use crate::search::Path;
use serde::Deserialize;
use std::path::PathBuf;

/// Options of `zingrs replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The model the counterexample belongs to.
    pub model: PathBuf,
    /// A report written by `zingrs check -o FILE` or `zingrs check --format json`.
    pub trace: PathBuf,
    #[arg(long, value_enum)]
    pub lang: Option<super::LangArg>,
    /// How much of each step to print (`none`: only check the report and print the verdict);
    /// `--trace` is the same option, spelled as `zingrs check` spells it.
    #[arg(long, visible_alias = "trace", value_enum, default_value = "full")]
    pub detail: TraceDetail,
}

/// The fields of a saved report that replay reads in its first pass; the others (the trace,
/// the statistics) are skipped unread. The trace is compared in a second pass
/// ([`compare_trace`]), streamed step by step.
#[derive(Deserialize)]
struct Saved {
    schema: Option<u32>,
    model: String,
    source_hash: Option<String>,
    /// Compared whole with the verdict the path ends in.
    verdict: serde_json::Value,
    exit_code: Option<i32>,
    path: Option<Path>,
    assertions: Option<bool>,
    cooperative: Option<bool>,
    max_atomic_steps: Option<u32>,
    /// `check --property`'s ids: the same selection is made again (a thread waiting at an
    /// assertion left out is blocked, as it was in the check).
    #[serde(default)]
    selected: Vec<String>,
}

/// What a saved verdict claims, as [`crate::report::Verdict`] serializes it: the kind that the path's last
/// state must show ([`report::verify`]); the rest of the verdict is compared as written.
#[derive(Deserialize, Debug)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum SavedVerdict {
    AssertionFailed {},
    TargetReached {
        label: String,
    },
    RuntimeError {
        error: RtError,
    },
    Deadlock {},
    LivenessViolated {
        property: search::Liveness,
        cycle_start: usize,
        #[serde(default)]
        formula: Option<String>,
        #[serde(default)]
        fairness: Option<String>,
    },
    #[serde(other)]
    Other,
}

impl SavedVerdict {
    /// What the verdict claims (an LTL formula compiled against `program`).
    fn claim(&self, program: &zingrs_lang::ir::Program) -> Result<Option<Claim>, String> {
        if let SavedVerdict::LivenessViolated {
            property,
            cycle_start,
            formula,
            fairness,
        } = self
        {
            let fair = match fairness.as_deref() {
                None => false,
                Some("weak") => true,
                Some(f) => return Err(format!("its fairness {f} is not one zingrs knows")),
            };
            let ltl = match (property, formula) {
                (search::Liveness::Ltl, Some(f)) => Some(std::sync::Arc::new(
                    crate::ltl::Ltl::compile(f, program)
                        .map_err(|e| format!("its LTL formula {f}: {e}"))?,
                )),
                (search::Liveness::Ltl, None) => {
                    return Err("its verdict is an LTL violation without a formula".into())
                }
                _ => None,
            };
            return Ok(Some(Claim::Cycle(*property, *cycle_start, ltl, fair)));
        }
        Ok(match self {
            SavedVerdict::AssertionFailed {} => Some(Claim::Assertion),
            SavedVerdict::TargetReached { label } => Some(Claim::Target(label.clone())),
            SavedVerdict::RuntimeError { error } => Some(Claim::Runtime(*error)),
            SavedVerdict::Deadlock {} => Some(Claim::Deadlock),
            SavedVerdict::LivenessViolated { .. } => unreachable!("handled above"),
            SavedVerdict::Other => None,
        })
    }
}

/// A JSON value in one line, cut to a length a message can show.
fn brief(v: &serde_json::Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(240) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s,
    }
}

/// The file name a report or a model is known by (its directory may differ between machines).
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Replays and prints; returns the verdict's exit code, 7 for a report that is not one of
/// this model's counterexamples, 5 for one that does not replay to its verdict.
pub fn run(a: &ReplayArgs) -> i32 {
    super::arm_default_watchdog("replay");
    let program = match super::load(&a.model, a.lang, false) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let name = a.model.display().to_string();
    let v = match verify(&program, &name, &a.trace) {
        Ok(v) => v,
        Err((code, message)) => {
            eprintln!("error: {message}");
            return code;
        }
    };
    let steps = v.trace.len();
    let trace = (a.detail != TraceDetail::None).then_some(v.trace);
    let head = format!(
        "Replaying {} steps of {} on {name}: the path ends in the reported verdict, {} ({steps} steps)\n",
        v.choices,
        a.trace.display(),
        v.compared,
    );
    let mut r = Report::new(&name, "replay", v.verdict, trace);
    r.source_hash = v.source_hash;
    let code = r.exit_code;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let printed = std::io::Write::write_all(&mut out, head.as_bytes()).and_then(|()| {
        report::render_to(&mut out, &r, Format::Text, a.detail, false, false, false)
    });
    if let Err(e) = printed {
        return super::stdout_failed(&e, &r.verdict);
    }
    code
}

/// A saved report's counterexample, replayed and found to be what the report says
/// ([`verify`]).
pub(crate) struct Verified<'p> {
    /// The verdict the path ends in (the report's, as written).
    pub verdict: report::Verdict,
    /// The path's trace, built again.
    pub trace: Trace<'p>,
    /// The path's number of choices.
    pub choices: usize,
    /// Whether the saved trace was compared, in words.
    pub compared: &'static str,
    /// The model's [`report::source_hash`].
    pub source_hash: String,
}

/// Reads the report saved in `file` (by `check -o FILE` or `--format json`) and checks that
/// it is a counterexample of `program` (known to the user as `name`) that re-executes to
/// exactly the reported verdict and trace. `Err`: the exit code and the message — 7 for a
/// report that is not one of this model's counterexamples, 5 for one that does not replay
/// to its verdict, 9 for a replay a limit stopped. `zingrs replay` and `zingrs collect` both
/// judge reports by it.
pub(crate) fn verify<'p>(
    program: &'p zingrs_lang::ir::Program,
    name: &str,
    file: &std::path::Path,
) -> Result<Verified<'p>, (i32, String)> {
    let invalid = |m: String| Err((exit::INVALID, m));
    let shown = file.display();
    let saved: Saved = match std::fs::File::open(file) {
        Ok(f) => match serde_json::from_reader(std::io::BufReader::with_capacity(1 << 16, f)) {
            Ok(s) => s,
            Err(e) => return invalid(format!("{shown} is not a zingrs JSON report: {e}")),
        },
        Err(e) => return invalid(format!("cannot read {shown}: {e}")),
    };
    if !saved
        .schema
        .is_some_and(|s| (report::OLDEST_REPLAYABLE..=report::SCHEMA).contains(&s))
    {
        return invalid(format!(
            "{shown} has report schema {}, this zingrs reads schemas {} to {}",
            saved.schema.map_or("(none)".into(), |s| s.to_string()),
            report::OLDEST_REPLAYABLE,
            report::SCHEMA
        ));
    }
    let hash = report::source_hash(&program.source.text);
    let same_name = name == "-" || saved.model == "-" || file_name(&saved.model) == file_name(name);
    if !same_name || saved.source_hash.as_deref() != Some(hash.as_str()) {
        return invalid(format!(
            "{shown} is a report of {} (source {}), not of {name} (source {hash})",
            saved.model,
            saved.source_hash.as_deref().unwrap_or("unknown"),
        ));
    }
    let claim = match serde_json::from_value::<SavedVerdict>(saved.verdict.clone()) {
        Ok(v) => match v.claim(program) {
            Ok(c) => c,
            Err(e) => return invalid(format!("{shown} is not a report of this model: {e}")),
        },
        Err(e) => {
            return invalid(format!(
                "{shown} is not a zingrs JSON report: its verdict: {e}"
            ))
        }
    };
    let Some(claim) = claim else {
        return invalid(format!(
            "{shown} reports no error, so it holds no counterexample to replay"
        ));
    };
    let Some(path) = saved.path else {
        return invalid(format!("{shown} holds no counterexample path"));
    };
    let selection = if saved.selected.is_empty() {
        None
    } else {
        let opts = crate::check::CheckOptions {
            assertions: saved.assertions.unwrap_or(true),
            cooperative: saved.cooperative.unwrap_or(false),
            targets: saved
                .selected
                .iter()
                .filter_map(|id| id.strip_prefix("label.").map(String::from))
                .filter(|l| program.has_label(l))
                .collect(),
            ..Default::default()
        };
        let all = crate::check::properties::listed(program, &opts);
        match crate::check::properties::select(&all, &saved.selected, name) {
            Ok(s) => Some(std::sync::Arc::new(s.selection)),
            Err(e) => return invalid(format!("{shown}: {e}")),
        }
    };
    let semantics = Semantics {
        check_assertions: saved.assertions.unwrap_or(true),
        // a path under `--threads` is a path of the unbounded program too
        thread_bound: None,
        cooperative: saved.cooperative.unwrap_or(false),
        // a report claiming a deadlock was written with deadlocks looked for
        deadlock: true,
        // an LTL lasso was found with every global observed
        observe_globals: matches!(claim, Claim::Cycle(search::Liveness::Ltl, ..)),
        selection,
        coverage: None,
        max_atomic_steps: saved
            .max_atomic_steps
            .unwrap_or(crate::runtime::MAX_ATOMIC_STEPS),
    };
    let m = std::sync::Arc::new(Machine::new(program, semantics));
    let wrong = |e: String| {
        Err((
            exit::INTERNAL,
            format!("the report's counterexample is wrong for {name}: {e}"),
        ))
    };
    // one state is kept: the trace replays the path again as it is compared and printed
    let replayed = match search::replay_keeping(&m, &path, false) {
        Ok(r) => r,
        Err(e) => return wrong(format!("it does not replay: {e}")),
    };
    let (verdict, end) = match report::verify(&m, &path, &replayed, &claim) {
        Ok(v) => v,
        Err(e) => return wrong(e),
    };
    // what a reader sees must be what the path gives: the verdict as written, its exit code,
    // and the trace step by step
    let claimed = serde_json::to_value(&verdict).unwrap_or_default();
    if claimed != saved.verdict {
        return wrong(format!(
            "the path ends in {}, the report says {}",
            brief(&claimed),
            brief(&saved.verdict)
        ));
    }
    if saved.exit_code != Some(verdict.exit_code()) {
        return wrong(format!(
            "its verdict has exit code {}, the report says {}",
            verdict.exit_code(),
            saved.exit_code.map_or("none".into(), |c| c.to_string())
        ));
    }
    let trace = report::build_trace(&m, &path, &replayed, end);
    let schema = saved.schema.unwrap_or(report::SCHEMA);
    let compared = compare_trace(file, &trace, schema);
    if let Some(limit) = trace.cut_by() {
        // the walk stopped at Ctrl-C or a limit: the comparison is not finished
        return Err((
            exit::LIMIT,
            format!(
                "replay stopped ({}) before the saved trace was compared",
                match limit {
                    crate::search::Limit::Interrupted => "interrupted".to_string(),
                    l => format!("{} reached", l.describe()),
                }
            ),
        ));
    }
    let compared = match compared {
        Ok(true) => "gives the reported trace",
        Ok(false) => "the report has no trace to compare (`--trace none`)",
        Err(e) => return wrong(e),
    };
    Ok(Verified {
        verdict,
        trace,
        choices: path.choices.len(),
        compared,
        source_hash: hash,
    })
}

/// Compares the `trace` of the saved report `file` with `trace`, the one its path gives:
/// the file is read again as a stream, one saved step at a time, and each step must be the
/// path's step as `check` writes it (schema 1 wrote values as text: those may be the values'
/// text). A trace cut short must say so (`"interrupted": true`, written when Ctrl-C or a
/// limit stopped the writing) and be a prefix; a `null` trace (`--trace none`) shows nothing
/// to compare. Returns whether there was a trace to compare, or what differs.
fn compare_trace(file: &std::path::Path, trace: &Trace, schema: u32) -> Result<bool, String> {
    let f = std::fs::File::open(file).map_err(|e| format!("it cannot be read again: {e}"))?;
    let mut cmp = TraceCmp {
        expected: Box::new(Fold::new(trace.steps(Shows::ALL))),
        threads: trace.threads,
        text_values: schema < 2,
        differs: None,
        seen: false,
        null: false,
    };
    let mut de =
        serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(1 << 16, f));
    let read = serde::de::DeserializeSeed::deserialize(Top(&mut cmp), &mut de);
    if let Some(d) = cmp.differs {
        return Err(d);
    }
    read.map_err(|e| format!("its trace cannot be read: {e}"))?;
    if !cmp.seen {
        return Err("it has no trace".into());
    }
    Ok(!cmp.null)
}

/// The state of a [`compare_trace`]: the path's steps not yet compared, and what differed.
struct TraceCmp<'t> {
    /// The path's steps as `check` writes them: loop repetitions folded.
    expected: Box<dyn Iterator<Item = Item> + 't>,
    threads: u32,
    text_values: bool,
    differs: Option<String>,
    /// A `trace` field was read.
    seen: bool,
    /// It was `null`.
    null: bool,
}

impl TraceCmp<'_> {
    /// Records what differs and stops the reading (the error is replaced by `differs`).
    fn differ<E: serde::de::Error>(&mut self, what: String) -> E {
        self.differs = Some(what);
        E::custom("the trace differs")
    }

    /// Whether `saved` is the path's `step`.
    fn same(&self, saved: &serde_json::Value, item: &Item) -> (bool, serde_json::Value) {
        let expected = serde_json::to_value(item).unwrap_or_default();
        if *saved == expected {
            return (true, expected);
        }
        let Item::Step(step) = item else {
            return (false, expected);
        };
        if self.text_values {
            let mut text = step.clone();
            for b in text.values.iter_mut().chain(text.changed.iter_mut()) {
                b.value = Shown::Text(b.value.to_string());
            }
            if *saved == serde_json::to_value(&text).unwrap_or_default() {
                return (true, expected);
            }
        }
        (false, expected)
    }
}

/// The report's top-level object: only `trace` is looked at.
struct Top<'a, 't>(&'a mut TraceCmp<'t>);

impl<'de> serde::de::DeserializeSeed<'de> for Top<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Top<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a report object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key != "trace" {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            if self.0.seen {
                return Err(self.0.differ("it has two traces".into()));
            }
            self.0.seen = true;
            map.next_value_seed(SavedTrace(&mut *self.0))?;
        }
        Ok(())
    }
}

/// The saved `trace`: `null`, or `{"threads", "steps", "interrupted"?}`.
struct SavedTrace<'a, 't>(&'a mut TraceCmp<'t>);

impl<'de> serde::de::DeserializeSeed<'de> for SavedTrace<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> serde::de::Visitor<'de> for SavedTrace<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a trace object or null")
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.null = true;
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.null = true;
        Ok(())
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let cmp = self.0;
        let (mut threads, mut steps, mut interrupted) = (None, None, false);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "threads" if threads.is_none() => threads = Some(map.next_value::<u32>()?),
                "steps" if steps.is_none() => {
                    steps = Some(map.next_value_seed(SavedSteps(&mut *cmp))?)
                }
                "interrupted" => interrupted = map.next_value::<bool>()?,
                other => {
                    return Err(cmp.differ(format!(
                        "its trace has a field `{other}` that zingrs does not write there"
                    )))
                }
            }
        }
        if threads != Some(cmp.threads) {
            return Err(cmp.differ(format!(
                "its trace has {} threads, the path {}",
                threads.map_or("no count of".into(), |t| t.to_string()),
                cmp.threads
            )));
        }
        let Some(saved) = steps else {
            return Err(cmp.differ("its trace has no steps".into()));
        };
        let rest = cmp.expected.by_ref().count();
        match (rest, interrupted) {
            (0, false) => Ok(()),
            (0, true) => Err(cmp.differ(format!(
                "its trace says it was cut short but holds all {saved} steps of the path"
            ))),
            (_, true) => Ok(()),
            (rest, false) => Err(cmp.differ(format!(
                "its trace has {saved} steps, the path {}",
                saved + rest
            ))),
        }
    }
}

/// The saved `steps`, compared one by one with the path's as they are read; the number read.
struct SavedSteps<'a, 't>(&'a mut TraceCmp<'t>);

impl<'de> serde::de::DeserializeSeed<'de> for SavedSteps<'_, '_> {
    type Value = usize;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for SavedSteps<'_, '_> {
    type Value = usize;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of steps")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let cmp = self.0;
        let mut n = 0;
        while let Some(saved) = seq.next_element::<serde_json::Value>()? {
            let Some(step) = cmp.expected.next() else {
                return Err(cmp.differ(format!("its trace has more steps than the path's {n}")));
            };
            let (same, expected) = cmp.same(&saved, &step);
            if !same {
                return Err(cmp.differ(format!(
                    "step {n} of its trace is {}, the path's is {}",
                    brief(&saved),
                    brief(&expected)
                )));
            }
            n += 1;
        }
        Ok(n)
    }
}
