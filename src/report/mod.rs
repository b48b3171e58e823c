//! Outcomes of a check and their renderings.
//!
//! A [`Report`] is what a check found: the verdict, the counterexample as source-level steps,
//! and statistics. It is plain data (serde); [`render`] is the only place that knows the output
//! formats: text, JSON, Bebop's trace layout, and ZING's `-entireZingTrace` layout.

pub(crate) mod fold;
mod invalid;
mod render;
mod trace;
mod verify;
mod walk;

pub use invalid::invalid_json;
pub use render::{header, render, render_properties, render_to, Format, TraceDetail};
pub use trace::build_trace;
pub use verify::{verify, Claim};
pub use walk::Shows;

use crate::search::Limit;
use serde::Serialize;

/// Exit codes (Zinger's convention, cli.md).
pub mod exit {
    pub const PASSED: i32 = 0;
    pub const DEADLOCK: i32 = 2;
    pub const ASSERTION: i32 = 3;
    pub const RUNTIME_ERROR: i32 = 4;
    pub const INTERNAL: i32 = 5;
    pub const INVALID: i32 = 7;
    pub const BOUNDED: i32 = 8;
    pub const LIMIT: i32 = 9;
    /// The verdict was decided and printed first, but the report could not be written (`-o
    /// FILE` on a full disk or in an unwritable place, or standard output).
    /// Not 6, which ZING gives liveness violations.
    pub const OUTPUT: i32 = 10;
    /// A liveness violation (`check --liveness`): a reachable cycle of the kind asked for, as
    /// ZING's `-ndfsliveness` exits on an accepting cycle.
    pub const LIVENESS: i32 = 6;
}

/// The answer of a check.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Verdict {
    /// No error is reachable.
    Passed,
    /// An assertion can fail.
    AssertionFailed {
        procedure: String,
        line: u32,
        /// The column of the assert statement (1-based, in characters).
        column: u32,
        /// The asserted condition as written.
        condition: String,
        /// Zing's `assert(e, "message")` message (empty without one).
        message: String,
    },
    /// A `--target` label is reachable.
    TargetReached {
        label: String,
        procedure: String,
        line: u32,
        column: u32,
    },
    /// A runtime error (null dereference, overflow, ...) can happen.
    RuntimeError {
        error: crate::runtime::RtError,
        message: String,
        procedure: String,
        line: u32,
        column: u32,
        /// The failing statement as written.
        statement: String,
        /// The values, just before the failing step, of the variables the statement names.
        values: Vec<Binding>,
        /// What the failing operation saw (the index and the length, the operands that
        /// overflowed), for the errors whose step says more than their kind.
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<ErrorDetail>,
    },
    /// No process can move and one is blocked at a select not marked `end`.
    Deadlock {
        /// The number of blocked processes (completed ones are not counted).
        blocked: u32,
        /// Where each blocked process waits.
        waiting: Vec<Waiting>,
    },
    /// A liveness property is violated (`check --liveness`): the counterexample is a lasso,
    /// its steps from `cycle_start` (0-based) on a cycle that returns to the state it starts
    /// at, and runs forever.
    LivenessViolated {
        property: crate::search::Liveness,
        /// With `--ltl`, the formula the run violates.
        #[serde(skip_serializing_if = "Option::is_none")]
        formula: Option<String>,
        /// With `--fairness weak`: `weak` (the cycle is weakly fair).
        #[serde(skip_serializing_if = "Option::is_none")]
        fairness: Option<String>,
        /// What the cycle is: `accepting cycle`, `non-terminating cycle`, `non-progress cycle`.
        cycle: String,
        /// The number of steps before the cycle (the index of its first step).
        cycle_start: u64,
        /// The number of steps of the cycle.
        cycle_length: u64,
        /// The cycle comes back to its globals and top frame with more frames under that
        /// frame, not to its whole state (a pushdown lasso of `--engine bdd --ltl`): each
        /// time round it calls deeper, and it never returns.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        pushdown: bool,
    },
    /// No error was found, but a bound cut the search (`bound` names it: the stack-depth
    /// bound, the thread bound, [`CONTEXT_BOUND`]).
    Bounded { bound: String },
    /// A time, state or memory limit stopped the search.
    LimitReached { limit: Limit },
    /// Something is wrong in zingrs itself (a counterexample that does not replay).
    InternalError { message: String },
}

/// How a [`Verdict::Bounded`] names the context-switch bound (`--contexts K`); `zingrs regress`
/// tells a context cut from a depth cut by it.
pub const CONTEXT_BOUND: &str = "context-switch bound";

/// How a [`Verdict::Bounded`] says that the engine found no error but does not look for
/// deadlocks, which the program's threads may reach (the bdd and coverability engines on
/// boolean programs with threads): not a proof, unless `--no-deadlock` asks for none.
pub const DEADLOCKS_UNCHECKED: &str = "deadlock check, which this engine does not make,";

impl Verdict {
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::Passed => exit::PASSED,
            Verdict::AssertionFailed { .. } | Verdict::TargetReached { .. } => exit::ASSERTION,
            // a reference used at a type it does not have is ZING's internal error (§10 rule 20)
            Verdict::RuntimeError {
                error: crate::runtime::RtError::TypeMismatch,
                ..
            } => exit::INTERNAL,
            Verdict::RuntimeError { .. } => exit::RUNTIME_ERROR,
            Verdict::Deadlock { .. } => exit::DEADLOCK,
            Verdict::LivenessViolated { .. } => exit::LIVENESS,
            Verdict::Bounded { .. } => exit::BOUNDED,
            Verdict::LimitReached { .. } => exit::LIMIT,
            Verdict::InternalError { .. } => exit::INTERNAL,
        }
    }

    /// One line saying what was found.
    pub fn headline(&self) -> String {
        match self {
            Verdict::Passed => "Check passed: no error is reachable".into(),
            Verdict::AssertionFailed {
                procedure, line, ..
            } => {
                format!("Check failed: assertion violated in {procedure} at line {line}")
            }
            Verdict::TargetReached {
                label,
                procedure,
                line,
                ..
            } => format!("Check failed: label {label} reached in {procedure} at line {line}"),
            Verdict::RuntimeError {
                message,
                procedure,
                line,
                ..
            } => format!("Check failed: {message} in {procedure} at line {line}"),
            Verdict::Deadlock { blocked, .. } => format!(
                "Check failed: deadlock ({blocked} process{} blocked, none runnable)",
                if *blocked == 1 { "" } else { "es" }
            ),
            Verdict::LivenessViolated {
                cycle,
                cycle_start,
                cycle_length: 0,
                ..
            } => match cycle_start.checked_sub(1) {
                Some(last) => format!(
                    "Check failed: liveness violated: {cycle} (the run ends with step {last}; its last state repeats forever)"
                ),
                None => format!(
                    "Check failed: liveness violated: {cycle} (no thread can move in the initial state, which repeats forever)"
                ),
            },
            Verdict::LivenessViolated {
                cycle,
                cycle_start,
                cycle_length,
                pushdown,
                ..
            } => format!(
                "Check failed: liveness violated: {cycle} (steps {} to {} repeat forever{})",
                cycle_start,
                cycle_start + cycle_length - 1,
                if *pushdown {
                    ", each time deeper in calls that never return"
                } else {
                    ""
                }
            ),
            Verdict::Bounded { bound } if bound == DEADLOCKS_UNCHECKED => {
                "Check inconclusive: no assertion or label error found, but this engine does not \
                 look for deadlocks (--no-deadlock checks assertions and labels only)"
                    .into()
            }
            Verdict::Bounded { bound } => {
                format!("Check inconclusive: no error found, but the {bound} cut the search")
            }
            Verdict::LimitReached {
                limit: Limit::Interrupted,
            } => "Check inconclusive: interrupted before the search ended".into(),
            Verdict::LimitReached { limit } => {
                format!(
                    "Check inconclusive: {} reached before the search ended",
                    limit.describe()
                )
            }
            Verdict::InternalError { message } => format!("Internal error: {message}"),
        }
    }
}

/// Where a process of a deadlocked state waits (as SPIN lists its processes at an invalid
/// end state).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Waiting {
    /// The process's index in the state (0 is the first activated one).
    pub process: u32,
    pub procedure: String,
    pub line: u32,
    pub column: u32,
    /// The statement it is blocked at, as in the source (whitespace collapsed).
    pub statement: String,
}

/// The failing operation of a runtime error, with its (sub)expressions as source-level text
/// and the values it computed with (from [`crate::runtime::Fault`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "operation", rename_all = "kebab-case")]
pub enum ErrorDetail {
    /// `array[index]` with `value` outside `0..length`.
    Index {
        array: String,
        index: String,
        value: i128,
        length: i128,
    },
    /// An operation whose exact result is outside `min..max`: a binary operator with two
    /// operands, or `-` (negation) and `conversion` with one.
    Overflow {
        expression: String,
        operator: String,
        operands: Vec<i128>,
        result: i128,
        min: i128,
        max: i128,
    },
    /// `/` or `%` with a zero right operand.
    DivideByZero {
        expression: String,
        operator: String,
        operands: Vec<i128>,
    },
    /// An array length outside `0..max`.
    Length {
        expression: String,
        value: i64,
        max: i64,
    },
    /// The reference `reference` is null where an operation needed an object: `access` says
    /// which (`read-field`, `write-field`, `element`, `size`, `membership`, `set-update`,
    /// `send`, `receive`, `choose`, `call`), `field` names the field read or written.
    NullReference {
        reference: String,
        access: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        field: Option<String>,
    },
}

/// A variable's value at a step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Binding {
    pub name: String,
    pub value: Shown,
}

/// What a trace shows for a name: a value of the model, or an event in words (`new Node`,
/// `started Main.w`, `ended`). JSON gets the value typed (a boolean, a number, `null`,
/// `{"ref": N}`) so that readers need not parse text; the text trace prints it as the runtime
/// writes values (0/1 for booleans, `#N` for references).
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    Value(crate::runtime::Value),
    Text(String),
    /// A Zing value in source terms (`true`, `Color.Red`, an array's contents `[2, 1, 2]`):
    /// the text trace prints `text`, JSON gets `json` (a boolean, an enum member's name as a
    /// string, a collection's elements).
    Term {
        text: String,
        json: serde_json::Value,
    },
}

impl Serialize for Shown {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Shown::Value(v) => v.serialize(s),
            Shown::Text(t) => s.serialize_str(t),
            Shown::Term { json, .. } => json.serialize(s),
        }
    }
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shown::Value(v) => v.fmt(f),
            Shown::Text(t) | Shown::Term { text: t, .. } => f.write_str(t),
        }
    }
}

/// One step of a counterexample, as the user reads it: the statement about to execute, the
/// values in scope just before it, and what the step changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceStep {
    pub step: usize,
    pub thread: u32,
    /// Call-stack depth of the thread (1 = its first procedure).
    pub depth: u32,
    pub procedure: String,
    pub line: u32,
    pub statement: String,
    pub values: Vec<Binding>,
    /// What differs between the state before the step and the state after it: globals, the
    /// running frame's locals, heap object fields (`Node#2.next`), then new objects
    /// (`Node#3` = `new Node`) and processes started or ended (`process 1` = `started C.m`).
    /// Empty for a step that fails (it has no after-state).
    pub changed: Vec<Binding>,
}

/// A counterexample, replayed on the interpreter. A trace made by [`build_trace`] keeps its
/// path, not its steps: each writing of it builds them again from the path, one state at a
/// time ([`Trace::steps`]), so that a counterexample of millions of steps is written without
/// holding millions of states or steps. A trace can also be a list of steps given whole
/// ([`Trace::listed`]).
#[derive(Clone, Debug)]
pub struct Trace<'m> {
    /// The most threads alive at once along the path.
    pub threads: u32,
    source: Source<'m>,
    /// ZING's view of the path, for `--format zing` (not part of the JSON report).
    pub zing: Option<ZingTrace>,
}

/// Where a trace's steps come from.
#[derive(Clone, Debug)]
enum Source<'m> {
    Listed {
        steps: Vec<TraceStep>,
        states: Vec<ZingState>,
    },
    Path(walk::PathTrace<'m>),
}

impl<'m> Trace<'m> {
    /// A trace of the steps and ZING states given.
    pub fn listed(
        threads: u32,
        steps: Vec<TraceStep>,
        states: Vec<ZingState>,
        zing: Option<ZingTrace>,
    ) -> Trace<'m> {
        Trace {
            threads,
            source: Source::Listed { steps, states },
            zing,
        }
    }

    fn replayed(path: walk::PathTrace<'m>, threads: u32, zing: ZingTrace) -> Trace<'m> {
        Trace {
            threads,
            source: Source::Path(path),
            zing: Some(zing),
        }
    }

    /// The number of steps.
    pub fn len(&self) -> usize {
        match &self.source {
            Source::Listed { steps, .. } => steps.len(),
            Source::Path(p) => p.len(),
        }
    }

    /// Whether writing the trace stopped early (after its last walk): [`Trace::cut_by`].
    pub fn interrupted(&self) -> bool {
        self.cut_by().is_some()
    }

    /// What stopped the writing of the trace early (after its last walk): Ctrl-C or SIGTERM,
    /// or a limit reached after the verdict was decided.
    pub fn cut_by(&self) -> Option<Limit> {
        match &self.source {
            Source::Listed { .. } => None,
            Source::Path(p) => p.cut(),
        }
    }

    /// Whether the trace has no step.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The steps in order, with what `shows` asks for (a listed trace has what it was given).
    pub fn steps(&self, shows: Shows) -> Box<dyn Iterator<Item = TraceStep> + '_> {
        match &self.source {
            Source::Listed { steps, .. } => Box::new(steps.iter().cloned()),
            Source::Path(p) => Box::new(p.steps(shows)),
        }
    }

    /// The steps last to first.
    pub fn steps_rev(&self, shows: Shows) -> Box<dyn Iterator<Item = TraceStep> + '_> {
        match &self.source {
            Source::Listed { steps, .. } => Box::new(steps.iter().rev().cloned()),
            Source::Path(p) => Box::new(p.steps_rev(shows)),
        }
    }

    /// The number of ZING's states along the counterexample.
    pub fn zing_len(&self) -> usize {
        match &self.source {
            Source::Listed { states, .. } => states.len(),
            Source::Path(p) => p.zing_len(),
        }
    }

    /// ZING's states in order, each with its dump when `dumps`.
    pub fn zing_states(&self, dumps: bool) -> Box<dyn Iterator<Item = ZingState> + '_> {
        match &self.source {
            Source::Listed { states, .. } => Box::new(states.iter().cloned()),
            Source::Path(p) => Box::new(p.zing_states(dumps)),
        }
    }
}

/// The JSON form, `{"threads": N, "steps": [...]}`, its steps serialized as they are built,
/// repeated loop iterations folded (`fold::Fold`).
impl Serialize for Trace<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Steps<'a, 'm>(&'a Trace<'m>);
        impl Serialize for Steps<'_, '_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(fold::Fold::new(self.0.steps(Shows::ALL)))
            }
        }
        let mut t = s.serialize_struct("Trace", 3)?;
        t.serialize_field("threads", &self.threads)?;
        t.serialize_field("steps", &Steps(self))?;
        if self.interrupted() {
            t.serialize_field("interrupted", &true)?;
        }
        t.end()
    }
}

/// A counterexample as ZING's `-entireZingTrace` shows it (zing-language.md §8): every state
/// along the path ([`Trace::zing_states`]), and where the error happened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZingTrace {
    /// The model's file name, for the stack trace.
    pub file: String,
    /// The erring process's frames, innermost first: procedure and line (the failing statement,
    /// then the call sites). Empty for a deadlock.
    pub stack: Vec<(String, u32)>,
    /// For a failed assertion: the condition's source text and the assert's message (empty
    /// when it has none).
    pub assertion: Option<(String, String)>,
}

/// One state of a counterexample in ZING's view. `states[0]` is the initial state, `states[j]`
/// the state after step `j - 1`; a path that ends in a failing step ends with the state the
/// error stopped in: the state before that step, its process at the failing statement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZingState {
    /// The id of the process whose step led here (none for the initial state).
    pub ran: Option<u32>,
    /// For ZING's choice step, the alternative taken (printed "took choice k" instead).
    pub took: Option<u32>,
    /// The state's dump, one line each (static fields, heap objects, processes and frames);
    /// empty unless asked for.
    pub dump: Vec<String>,
}

/// What a check measured. A count that was not kept is `None` (JSON `null`, "not counted" in
/// text), never a false 0: a run the watchdog ended knows only its states and time, and the
/// bdd and coverability engines have no stack depth, search depth or hash compaction.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub states: u64,
    /// The states ZING would count for this search (its counting rule, zing-language.md §6.7);
    /// `--format zing` prints it when known, else `states`.
    pub zing_states: Option<u64>,
    pub transitions: Option<u64>,
    pub initial_states: Option<u64>,
    pub max_stack_depth: Option<u32>,
    pub max_search_depth: Option<u64>,
    pub seconds: f64,
    pub peak_memory_bytes: Option<u64>,
    /// Upper bound on the probability that hash compaction missed a state (0 with `--exact`).
    pub omission_probability: Option<f64>,
    /// A parallel search's speed-up: the CPU time of its workers over its wall-clock time
    /// (what they did at once; `None` on one thread).
    pub speedup: Option<f64>,
    /// Engine-specific counters.
    pub counters: Vec<Counter>,
    /// Summary engine: per procedure, the patterns (roots) and effects computed.
    pub summaries: Vec<ProcSummaries>,
}

/// The summaries of one procedure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProcSummaries {
    pub procedure: String,
    pub patterns: u64,
    pub effects: u64,
}

/// An engine's counter name as reports spell it: lower-case words joined by `_`
/// (`summaries (effects)` → `summaries_effects`), so every engine's names have one form; the
/// text report shows the underscores as blanks.
pub fn counter_name(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_")
}

/// A named engine-specific count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Counter {
    pub name: String,
    pub value: u64,
}

/// One error found (with `--keep-going` there may be several).
#[derive(Clone, Debug, Serialize)]
pub struct Finding<'m> {
    pub verdict: Verdict,
    pub trace: Option<Trace<'m>>,
}

/// A property a check looks at, with its stable id (`check --show-properties`; see
/// [`crate::check::properties()`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Property {
    /// The id `--property` takes.
    pub id: String,
    /// `assertion`, `target-label`, `deadlock`, or the runtime error's kind
    /// (`null-dereference`, `index-out-of-range`, ...).
    pub kind: String,
    /// The procedure it is in (`None` for the deadlock and infinite-loop checks).
    pub procedure: Option<String>,
    /// 1-based line and column (0 where it is nowhere in particular).
    pub line: u32,
    pub column: u32,
    /// The condition, label or statement, as written.
    pub text: String,
}

/// `check --coverage`: the statements that ran, and those a complete check never ran.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CoverageReport {
    /// The check ended without a limit or bound cutting it (and, with errors, found every
    /// one it met): only then is `unreached` given (empty otherwise).
    pub complete: bool,
    /// The model's statements (nodes grouped by where they start in the source).
    pub statements: u64,
    /// Those that ran.
    pub reached: u64,
    /// Those that never ran, per procedure in source order.
    pub unreached: Vec<Unreached>,
}

/// A statement a complete check never ran.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unreached {
    pub procedure: String,
    pub line: u32,
    pub column: u32,
    /// The statement as written (its first line).
    pub statement: String,
}

/// One property's status after a check (`--keep-going`'s table; see
/// [`crate::check::properties()`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PropertyStatus {
    /// Its stable id (`check --show-properties`).
    pub id: String,
    /// `assertion`, `target-label`, `deadlock`, or a runtime error's kind.
    pub kind: String,
    pub procedure: Option<String>,
    /// 1-based; 0 where it is nowhere in particular.
    pub line: u32,
    pub column: u32,
    /// `violated`, `not violated` (the search ended and looked for every error), `unknown`.
    pub status: String,
}

/// One engine's answer under `--engine all`: the per-engine table of the text report,
/// `--stats` and JSON's `engines`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineRun {
    pub engine: String,
    /// Its verdict's kind (`passed`, `assertion-failed`, `bounded`, `limit-reached`, ...).
    pub verdict: String,
    pub exit_code: i32,
    pub seconds: f64,
    pub states: u64,
    /// The limit or bound that stopped it (`memory limit`, `thread bound (--threads 2)`).
    pub limit: Option<String>,
    /// The length of its counterexample, when it found one.
    pub steps: Option<u64>,
    /// Whether its answer is the one the report gives (with its counterexample).
    pub reported: bool,
}

impl EngineRun {
    /// The row of a report made by one engine.
    pub fn of(r: &Report) -> EngineRun {
        let verdict = serde_json::to_value(&r.verdict)
            .ok()
            .and_then(|v| v["kind"].as_str().map(str::to_string))
            .unwrap_or_default();
        let limit = match &r.verdict {
            Verdict::Bounded { bound } => Some(bound.clone()),
            Verdict::LimitReached { limit } => Some(limit.describe().to_string()),
            _ => None,
        };
        EngineRun {
            engine: r.engine.clone(),
            verdict,
            exit_code: r.exit_code,
            seconds: r.stats.seconds,
            states: r.stats.states,
            limit,
            steps: r.path.as_ref().map(|p| p.choices.len() as u64),
            reported: false,
        }
    }
}

/// The version of the JSON report's layout (`docs/json-schema.json`); it changes whenever a
/// field is removed, renamed or changes type, so that saved reports can be recognized.
/// 2: trace values are typed (1 had them as text).
pub const SCHEMA: u32 = 2;

/// The oldest schema `zingrs replay` reads: what it reads (the path, the model, the verdict) is
/// the same in every schema so far.
pub const OLDEST_REPLAYABLE: u32 = 1;

/// The fingerprint of a model's source text that a report carries, so that `replay` can tell
/// a report of another model (or of an edited one) from a counterexample of this one.
pub fn source_hash(text: &str) -> String {
    format!(
        "xxh3-64:{:016x}",
        xxhash_rust::xxh3::xxh3_64(text.as_bytes())
    )
}

/// Everything a check found. Its traces are built from the model's machine as they are
/// written, so a report lives no longer than the machine (`'m`).
#[derive(Clone, Debug, Serialize)]
pub struct Report<'m> {
    /// [`SCHEMA`].
    pub schema: u32,
    pub tool: String,
    pub model: String,
    /// [`source_hash`] of the model's text (empty when not known).
    pub source_hash: String,
    pub engine: String,
    pub verdict: Verdict,
    pub exit_code: i32,
    pub trace: Option<Trace<'m>>,
    /// Further distinct errors (`--keep-going`).
    pub more: Vec<Finding<'m>>,
    pub stats: Stats,
    /// `--engine all`: what each engine that ran answered, in the order they ran (empty, and
    /// not written, for a single engine).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<EngineRun>,
    /// Each property's status (`--keep-going`; empty, and not written, otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub properties: Vec<PropertyStatus>,
    /// `--property`: the ids of the only properties checked (the others change which
    /// outcomes a step has: `zingrs replay` selects them again); empty: all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<String>,
    /// `--coverage`: the statements that ran and those that never did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<CoverageReport>,
    /// The counterexample as the interpreter re-executes it (`zingrs replay` reads this).
    pub path: Option<crate::search::Path>,
    /// Whether assertions were checked (they change which outcomes a step has).
    pub assertions: bool,
    /// Whether processes were scheduled cooperatively (a step then has other outcomes: a
    /// disabled `select` not right after a `yield` is an error); written only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cooperative: bool,
    /// `check --max-atomic-steps N`: where an infinite-loop error lies depends on it, so
    /// replay needs it; written only when it is not the default (1,000,000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_atomic_steps: Option<u32>,
    /// [`crate::search::SearchResult::fewest_switches`]: `--contexts-from` reports that bound.
    #[serde(skip)]
    pub fewest_switches: Option<u32>,
    /// The search ended without a limit or a bound cutting it, and (with `--keep-going`)
    /// reported every distinct error it met: a property it did not find violated is not.
    #[serde(skip)]
    pub exhaustive: bool,
    /// `check --seed S` (or a random search's default seed): the run's seed, so that the run
    /// can be made again; written only with one. Paths name outcomes by their place in the
    /// step's own order, so `zingrs replay` needs no seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `check --search random`: the run took random walks (it proves nothing when it finds
    /// nothing); written only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub random_walks: bool,
}

impl<'m> Report<'m> {
    pub fn new(model: &str, engine: &str, verdict: Verdict, trace: Option<Trace<'m>>) -> Self {
        Report {
            schema: SCHEMA,
            tool: format!("zingrs {}", env!("CARGO_PKG_VERSION")),
            model: model.to_string(),
            source_hash: String::new(),
            engine: engine.to_string(),
            exit_code: verdict.exit_code(),
            verdict,
            trace,
            more: Vec::new(),
            stats: Stats::default(),
            engines: Vec::new(),
            properties: Vec::new(),
            selected: Vec::new(),
            coverage: None,
            path: None,
            assertions: true,
            cooperative: false,
            max_atomic_steps: None,
            fewest_switches: None,
            exhaustive: false,
            seed: None,
            random_walks: false,
        }
    }

    /// One line saying what was found: the verdict's [`Verdict::headline`], except where
    /// random walks ended at a limit, which no search was there to end: they say so.
    pub fn headline(&self) -> String {
        match &self.verdict {
            Verdict::LimitReached { limit } if self.random_walks => {
                let limit = match limit {
                    Limit::States => "the step limit (--max-states counts the walks' steps)".into(),
                    Limit::Interrupted => "the interrupt".into(),
                    other => format!("the {}", other.describe()),
                };
                format!(
                    "Check inconclusive: the random walks found no error before {limit} stopped \
                     them (random walks prove no absence of errors)"
                )
            }
            v => v.headline(),
        }
    }
}
