//! Search limits and the process measurements they need.

use std::time::{Duration, Instant};

/// Bounds on a search. Reaching `max_depth` makes the result bounded (exit 8); the others make
/// it inconclusive (exit 9). Neither is ever a crash.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The deepest call stack any thread may have; deeper states are cut.
    pub max_depth: u32,
    pub max_states: Option<u64>,
    pub timeout: Option<Duration>,
    /// Resident memory, in bytes.
    pub memory: Option<u64>,
    /// Show a progress line on stderr once a search has run for a second (the CLI sets this
    /// when stderr is a terminal).
    pub progress: bool,
}

/// The default stack-depth bound: deep enough for any terminating recursion over a few booleans,
/// shallow enough that unbounded recursion ends quickly.
pub const DEFAULT_MAX_DEPTH: u32 = 1000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: DEFAULT_MAX_DEPTH,
            max_states: None,
            timeout: None,
            memory: default_memory_limit(),
            progress: false,
        }
    }
}

/// Which limit stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    States,
    Time,
    Memory,
}

impl Limit {
    pub fn describe(self) -> &'static str {
        match self {
            Limit::States => "state limit",
            Limit::Time => "time limit",
            Limit::Memory => "memory limit",
        }
    }
}

/// Checks the limits every so often (reading the clock and /proc costs more than a step).
pub struct Watch {
    start: Instant,
    ticks: u32,
    limits: Limits,
    bar: Option<indicatif::ProgressBar>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Watch {
    pub fn new(limits: &Limits) -> Watch {
        Watch {
            start: Instant::now(),
            ticks: 0,
            limits: limits.clone(),
            bar: None,
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Called once per expanded state with the number of stored states.
    #[inline]
    pub fn check(&mut self, states: u64) -> Option<Limit> {
        if let Some(m) = self.limits.max_states {
            if states >= m {
                return Some(Limit::States);
            }
        }
        self.ticks += 1;
        if self.ticks & 1023 != 1 {
            return None;
        }
        if self.limits.progress {
            self.show(states);
        }
        if let Some(t) = self.limits.timeout {
            if self.start.elapsed() >= t {
                return Some(Limit::Time);
            }
        }
        if self.ticks & 8191 == 1 {
            if let (Some(m), Some(rss)) = (self.limits.memory, resident_bytes()) {
                if rss >= m {
                    return Some(Limit::Memory);
                }
            }
        }
        None
    }
}

impl Watch {
    /// Updates the progress line (states, states per second, memory, time).
    fn show(&mut self, states: u64) {
        let t = self.start.elapsed().as_secs_f64();
        if t < 1.0 {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
            b
        });
        let mb = resident_bytes().map_or(0.0, |b| b as f64 / 1e6);
        bar.set_message(format!(
            "{states} states, {:.0} states/s, {mb:.0} MB, {t:.1} s",
            states as f64 / t
        ));
        bar.tick();
    }
}

fn proc_status_kb(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Current resident set size in bytes (Linux; None elsewhere).
pub fn resident_bytes() -> Option<u64> {
    proc_status_kb("VmRSS:").map(|k| k * 1024)
}

/// Peak resident set size in bytes (Linux; None elsewhere).
pub fn peak_bytes() -> Option<u64> {
    proc_status_kb("VmHWM:").map(|k| k * 1024)
}

/// Three quarters of physical memory, so that a search ends inconclusive before the OOM killer
/// ends it.
pub fn default_memory_limit() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024 / 4 * 3)
}
