//! Search limits, the process measurements they need, and the watchdog that enforces them
//! whatever the process is doing.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
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
    /// `timeout` counts the CPU time of the thread that runs the search, not wall-clock time:
    /// `zingrs regress` runs models side by side, and a busy machine must not fail them.
    pub cpu_time: bool,
    /// Show progress on stderr once a search has run for a second: a line redrawn in place on
    /// a terminal, a new line every [`PROGRESS_EVERY`] elsewhere (a log). The CLI sets this
    /// unless `-q`.
    pub progress: bool,
    /// Stops this search alone when set (`--engine auto`'s portfolio stops the engines that
    /// lost): it ends at its next check as if interrupted. Clones share the flag, so the
    /// workers of a parallel search and the rounds of a deepening see it too.
    pub cancel: Option<Cancel>,
}

/// A flag that stops the searches whose [`Limits::cancel`] it is ([`Watch::check`] polls it
/// beside the watchdog's limits).
#[derive(Clone, Debug, Default)]
pub struct Cancel(std::sync::Arc<AtomicBool>);

impl Cancel {
    /// Asks the searches that hold this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Relaxed);
    }

    /// Whether [`Cancel::cancel`] was called.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Relaxed)
    }
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
            cpu_time: false,
            cancel: None,
        }
    }
}

/// The time a search has spent against its [`Limits::timeout`]: wall-clock time, or with
/// [`Limits::cpu_time`] the CPU time of the thread that started the clock.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    wall: Instant,
    /// The thread's CPU time when the clock started (`None`: wall-clock time).
    cpu: Option<Duration>,
}

impl Clock {
    /// A clock of the thread's CPU time when `cpu` (and it can be read), else of wall time.
    pub fn new(cpu: bool) -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: if cpu { thread_cpu_time() } else { None },
        }
    }

    /// The clock that `limits` time a search by.
    pub fn start(limits: &Limits) -> Clock {
        Clock::new(limits.cpu_time)
    }

    /// The time spent since [`Clock::start`], as the limits count it. Call it on the thread
    /// that started the clock.
    pub fn spent(&self) -> Duration {
        match (self.cpu, thread_cpu_time()) {
            (Some(then), Some(now)) => now.saturating_sub(then),
            _ => self.wall.elapsed(),
        }
    }

    /// Whether `limits.timeout` has passed.
    pub fn expired(&self, limits: &Limits) -> bool {
        limits.timeout.is_some_and(|t| self.spent() >= t)
    }
}

/// The CPU time the calling thread has used.
#[cfg(unix)]
pub fn thread_cpu_time() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

/// The CPU time the calling thread has used (not measured here: wall-clock time is used).
#[cfg(not(unix))]
pub fn thread_cpu_time() -> Option<Duration> {
    None
}

/// Which limit stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    States,
    Time,
    Memory,
    /// The user interrupted the run (Ctrl-C, SIGINT, or SIGTERM).
    Interrupted,
}

impl Limit {
    pub fn describe(self) -> &'static str {
        match self {
            Limit::States => "state limit",
            Limit::Time => "time limit",
            Limit::Memory => "memory limit",
            Limit::Interrupted => "interrupt",
        }
    }

    /// A byte for the limit (never 0, which stands for none where it is sent or stored as
    /// one: the watchdog's flag, the distributed search's status messages).
    pub(crate) fn code(self) -> u8 {
        match self {
            Limit::States => 1,
            Limit::Time => 2,
            Limit::Memory => 3,
            Limit::Interrupted => 4,
        }
    }

    /// The limit of a [`Limit::code`] (None for 0 or an unknown byte).
    pub(crate) fn from_code(c: u8) -> Option<Limit> {
        match c {
            1 => Some(Limit::States),
            2 => Some(Limit::Time),
            3 => Some(Limit::Memory),
            4 => Some(Limit::Interrupted),
            _ => None,
        }
    }
}

/// How often a progress line is written where standard error is not a terminal.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Checks the limits every so often (reading the clock and /proc costs more than a step).
pub struct Watch {
    start: Instant,
    clock: Clock,
    ticks: u32,
    limits: Limits,
    bar: Option<indicatif::ProgressBar>,
    /// Where standard error is not a terminal: when the last progress line was written.
    logged: Option<Instant>,
    /// The search's depth (or level) and queue, for the progress line (0: not shown).
    pub depth: u64,
    pub queue: u64,
    /// What the count the search passes in counts, for the progress line: "states", or the
    /// "steps" of random walks, which store none.
    pub unit: &'static str,
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
            clock: Clock::start(limits),
            ticks: 0,
            limits: limits.clone(),
            bar: None,
            logged: None,
            depth: 0,
            unit: "states",
            queue: 0,
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Called once per expanded state with the number of stored states.
    #[inline]
    pub fn check(&mut self, states: u64) -> Option<Limit> {
        // the watchdog's verdict first: it sees the whole run, parsing included
        if let Some(l) = watchdog::stopped() {
            return Some(l);
        }
        if self
            .limits
            .cancel
            .as_ref()
            .is_some_and(Cancel::is_cancelled)
        {
            return Some(Limit::Interrupted);
        }
        if let Some(m) = self.limits.max_states {
            if states >= m {
                return Some(Limit::States);
            }
        }
        self.ticks += 1;
        if self.ticks & 1023 != 1 {
            return None;
        }
        // published every 1,024 states, not every state: several workers writing one shared
        // word per state kept its cache line moving between their cores
        watchdog::progress(states);
        if self.limits.progress {
            self.show(states);
        }
        if self.clock.expired(&self.limits) {
            return Some(Limit::Time);
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
    /// Updates the progress line (states, states per second, depth or level, queue, memory,
    /// time): in place on a terminal, as a new line every [`PROGRESS_EVERY`] elsewhere.
    fn show(&mut self, states: u64) {
        let t = self.start.elapsed().as_secs_f64();
        if t < 1.0 {
            return;
        }
        let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let due = match self.logged {
            Some(l) => l.elapsed() >= PROGRESS_EVERY,
            None => t >= PROGRESS_EVERY.as_secs_f64(),
        };
        if !terminal && !due {
            return;
        }
        let mb = resident_bytes().map_or(0.0, |b| b as f64 / 1e6);
        let unit = self.unit;
        let mut line = format!("{states} {unit}, {:.0} {unit}/s", states as f64 / t);
        if self.depth > 0 {
            line += &format!(", depth {}", self.depth);
        }
        if self.queue > 0 {
            line += &format!(", queue {}", self.queue);
        }
        line += &format!(", {mb:.0} MB, {t:.1} s");
        if !terminal {
            // a log keeps every line: one every few seconds, never redrawn
            eprintln!("progress: {line}");
            self.logged = Some(Instant::now());
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
            b
        });
        bar.set_message(line);
        bar.tick();
    }
}

fn proc_status_kb(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// How the program returns freed memory to the operating system, set once by the binary
/// ([`set_release_hook`]): the library does not choose the allocator, its user does.
static RELEASE: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Installs `release` (for mimalloc, `mi_collect(true)`), which [`release_freed_memory`]
/// calls; a second call is ignored.
pub fn set_release_hook(release: fn()) {
    let _ = RELEASE.set(release);
}

/// Returns memory freed so far to the operating system, where a hook is installed. Called
/// once a model is compiled: the front end's thread freed its syntax tree when it ended, and
/// an allocator that purges lazily would otherwise keep those pages resident through the
/// whole check (bebop-t 6400: a peak of 118 MB, of which the front end's 69 MB).
pub fn release_freed_memory() {
    if let Some(release) = RELEASE.get() {
        release();
    }
}

/// Current resident set size in bytes (Linux; None elsewhere).
pub fn resident_bytes() -> Option<u64> {
    proc_status_kb("VmRSS:").map(|k| k * 1024)
}

/// Peak resident set size in bytes (Linux; None elsewhere).
pub fn peak_bytes() -> Option<u64> {
    proc_status_kb("VmHWM:").map(|k| k * 1024)
}

/// Three quarters of the memory available when the run starts (MemAvailable: free memory plus
/// what the kernel can reclaim), so that a search ends inconclusive before the OOM killer ends
/// it, also on a machine whose memory other processes already use. Physical memory
/// (MemTotal) only on kernels that do not report MemAvailable. Read once per process: the
/// limit must not change from one engine, or one in-process check, to the next (the BDD engine
/// sizes its reused node table by it).
pub fn default_memory_limit() -> Option<u64> {
    static ONCE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *ONCE.get_or_init(read_memory_limit)
}

fn read_memory_limit() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb = |key: &str| -> Option<u64> {
        let line = s.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    let kb = kb("MemAvailable:").or_else(|| kb("MemTotal:"))?;
    Some(kb * 1024 / 4 * 3)
}

/// Resident set size from /proc/self/statm: one short read, no parsing of the whole status
/// file, cheap enough to poll every few milliseconds.
fn resident_fast() -> Option<u64> {
    use std::io::Read;
    let mut f = std::fs::File::open("/proc/self/statm").ok()?;
    let mut buf = [0u8; 96];
    let n = f.read(&mut buf).ok()?;
    let text = std::str::from_utf8(&buf[..n]).ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

#[cfg(unix)]
fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

#[cfg(not(unix))]
fn page_size() -> u64 {
    4096
}

/// The process-wide watchdog: a thread that checks the time and memory limits every few
/// milliseconds and notices Ctrl-C, whatever the main thread is doing (parsing, enumerating
/// initial states, searching, building a trace, replaying).
///
/// A limit is first *requested*: every engine's [`Watch::check`] sees it at its next state and
/// the search ends as usual, reporting the limit with its statistics. Work that does not reach
/// a check in time (a front end on a huge file, one statement with millions of outcomes, a
/// trace build) is *forced*: after a grace period the watchdog reports the limit itself, with
/// the statistics published so far, and ends the process with exit 9. Exactly one of the two
/// reports is printed: the main thread claims the right to report with [`watchdog::report`].
pub mod watchdog {
    use super::*;

    /// The limit requested (a [`Limit::code`]; 0: none).
    static STOP: AtomicU8 = AtomicU8::new(0);
    /// Whether a watchdog runs in this process (regress's in-process runs have none: they
    /// are guarded one by one, see [`guard`]).
    static ARMED: AtomicBool = AtomicBool::new(false);
    /// 0: running; 1: the main thread is reporting; 2: the watchdog is reporting.
    static PHASE: AtomicU8 = AtomicU8::new(0);
    /// Set by the SIGINT and SIGTERM handler.
    static INTERRUPTED: AtomicBool = AtomicBool::new(false);
    /// Set when the limit must be forced at once (an allocation that would pass the limit).
    static FORCE_NOW: AtomicBool = AtomicBool::new(false);
    /// Stored states published by the running search (for a forced report).
    static STATES: AtomicU64 = AtomicU64::new(0);
    /// The last resident set size measured, in bytes.
    static RSS: AtomicU64 = AtomicU64::new(0);
    /// The memory limit in bytes (0: none).
    static MEMORY: AtomicU64 = AtomicU64::new(0);

    /// How often the watchdog looks.
    pub const INTERVAL: Duration = Duration::from_millis(5);
    /// How long a requested time limit or interrupt waits for the main thread before the
    /// watchdog reports it itself.
    pub const GRACE: Duration = Duration::from_millis(400);
    /// The same for memory, which grows while we wait.
    pub const MEMORY_GRACE: Duration = Duration::from_millis(10);
    /// Allocations at least this large are checked against the memory limit before they are
    /// made ([`before_allocation`]).
    pub const LARGE: usize = 32 << 20;

    /// What the watchdog knows when it forces a limit: the limit, the stored states published
    /// so far, the time since it was armed.
    pub struct Forced {
        pub limit: Limit,
        /// The stored states the search last published ([`Watch::check`] does every 1,024
        /// states: up to that many behind).
        pub states: u64,
        pub elapsed: Duration,
    }

    /// The limit the watchdog requested, if any (one relaxed load: cheap enough per state).
    #[inline]
    pub fn stopped() -> Option<Limit> {
        Limit::from_code(STOP.load(Relaxed))
    }

    /// Whether the user pressed Ctrl-C: writers of long output (a trace) look at it between
    /// items, after the watchdog has handed the report over to the main thread.
    #[inline]
    pub fn interrupted() -> bool {
        INTERRUPTED.load(Relaxed)
    }

    /// The limit that cuts the writing of a report, if any: Ctrl-C or SIGTERM, or a limit
    /// requested during the search or after it. Writers of long output (a trace) look at it
    /// between items; once the main thread has claimed the report ([`report`]) the watchdog
    /// still requests limits but no longer forces them, so a limit cuts the writing, never
    /// the verdict already decided.
    #[inline]
    pub fn cut() -> Option<Limit> {
        stopped().or_else(|| interrupted().then_some(Limit::Interrupted))
    }

    /// Publishes the number of stored states, for a forced report (every 1,024 states,
    /// [`Watch::check`]).
    #[inline]
    pub fn progress(states: u64) {
        STATES.store(states, Relaxed);
    }

    fn request(l: Limit) {
        let _ = STOP.compare_exchange(0, l.code(), Relaxed, Relaxed);
    }

    /// Starts the watchdog for this process (once; later calls do nothing): time counts from
    /// now, memory is polled, SIGINT requests [`Limit::Interrupted`]. `force` prints the
    /// report of a forced limit; the process then exits with `exit_code`.
    pub fn arm(
        timeout: Option<Duration>,
        memory: Option<u64>,
        exit_code: i32,
        force: Box<dyn FnOnce(Forced) + Send>,
    ) {
        if ARMED.swap(true, Relaxed) {
            return;
        }
        MEMORY.store(memory.unwrap_or(0), Relaxed);
        install_sigint();
        let start = Instant::now();
        let spawned = std::thread::Builder::new()
            .name("zingrs-watchdog".into())
            .spawn(move || watch(start, timeout, memory, exit_code, force));
        if spawned.is_err() {
            ARMED.store(false, Relaxed);
        }
    }

    fn watch(
        start: Instant,
        timeout: Option<Duration>,
        memory: Option<u64>,
        exit_code: i32,
        force: Box<dyn FnOnce(Forced) + Send>,
    ) {
        let mut requested: Option<Instant> = None;
        loop {
            std::thread::sleep(INTERVAL);
            if PHASE.load(Relaxed) == 2 {
                return;
            }
            let rss = resident_fast().unwrap_or(0);
            RSS.store(rss, Relaxed);
            if INTERRUPTED.load(Relaxed) {
                request(Limit::Interrupted);
            }
            if timeout.is_some_and(|t| start.elapsed() >= t) {
                request(Limit::Time);
            }
            if memory.is_some_and(|m| rss >= m) {
                request(Limit::Memory);
            }
            // the main thread is reporting: a limit is only requested, for `cut`
            let Some(limit) = stopped().filter(|_| PHASE.load(Relaxed) == 0) else {
                continue;
            };
            let since = *requested.get_or_insert_with(Instant::now);
            let grace = if limit == Limit::Memory {
                MEMORY_GRACE
            } else {
                GRACE
            };
            if !FORCE_NOW.load(Relaxed) && since.elapsed() < grace {
                continue;
            }
            if PHASE.compare_exchange(0, 2, Relaxed, Relaxed).is_err() {
                return;
            }
            force(Forced {
                limit,
                states: STATES.load(Relaxed),
                elapsed: start.elapsed(),
            });
            exit_now(exit_code);
        }
    }

    /// Claims the right to print the final report. `false` when the watchdog already forced
    /// a limit and is printing its own report: the caller must then print nothing and wait
    /// for the process to end ([`wait_for_exit`]). Without a watchdog, always `true`.
    pub fn report() -> bool {
        !ARMED.load(Relaxed) || PHASE.compare_exchange(0, 1, Relaxed, Relaxed).is_ok()
    }

    /// Blocks forever: the watchdog is ending the process.
    pub fn wait_for_exit() -> ! {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }

    /// Called by the allocator before an allocation of `size` bytes (at least [`LARGE`]):
    /// when it would take the process past the memory limit, the limit is forced at once and
    /// the calling thread waits for the watchdog to end the process, so that an array or a
    /// list of outcomes too large for the limit is an exit 9, not an allocation attempt. It
    /// allocates nothing and takes no lock.
    pub fn before_allocation(size: usize) {
        if !ARMED.load(Relaxed) || PHASE.load(Relaxed) != 0 {
            return;
        }
        let limit = MEMORY.load(Relaxed);
        if limit == 0 || RSS.load(Relaxed).saturating_add(size as u64) < limit {
            return;
        }
        request(Limit::Memory);
        FORCE_NOW.store(true, Relaxed);
        if std::thread::current().name() == Some("zingrs-watchdog") {
            return;
        }
        wait_for_exit();
    }

    fn exit_now(code: i32) -> ! {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // the main thread may be anywhere (inside the allocator, holding a RefCell): end the
        // process without running anything else
        #[cfg(unix)]
        // SAFETY: _exit has no preconditions and never returns
        unsafe {
            libc::_exit(code)
        }
        #[cfg(not(unix))]
        std::process::exit(code)
    }

    /// Model allocations at least this large are checked against the memory limit of an
    /// in-process run ([`before_model_allocation`]).
    pub const MODEL_LARGE: usize = 1 << 20;

    std::thread_local! {
        /// The memory limit of the in-process run on this thread, in bytes (0: none; see
        /// [`guard`]).
        static GUARD_MEMORY: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// What an in-process run stopped by a limit unwinds with (see [`guard`]); the runner
    /// catches it and reports the limit.
    #[derive(Clone, Copy, Debug)]
    pub struct LimitUnwind(pub Limit);

    /// Keeps an in-process run's memory limit armed on this thread until dropped.
    pub struct Guard {
        prev: u64,
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            GUARD_MEMORY.with(|g| g.set(self.prev));
        }
    }

    /// Arms `memory` for the run about to start on this thread, for runs that share the
    /// process with others (`zingrs regress`): the process-wide watchdog would end them all
    /// with `exit`. A model allocation of at least [`MODEL_LARGE`] bytes that would take the
    /// process past the limit then unwinds with [`LimitUnwind`] before it is made, so that
    /// the run ends with the memory limit and the others go on. Growth by smaller steps is
    /// caught by the search's own [`Watch::check`].
    pub fn guard(memory: Option<u64>) -> Guard {
        let prev = GUARD_MEMORY.with(|g| g.replace(memory.unwrap_or(0)));
        Guard { prev }
    }

    /// Called by the runtime before it allocates a model's object of `bytes` bytes: on a
    /// guarded thread ([`guard`]), unwinds with [`LimitUnwind`] when the allocation would
    /// take the process past the run's memory limit. Does nothing elsewhere (`zingrs check`
    /// has the allocator's check, [`before_allocation`]).
    #[inline]
    pub fn before_model_allocation(bytes: usize) {
        if bytes < MODEL_LARGE {
            return;
        }
        let limit = GUARD_MEMORY.with(|g| g.get());
        if limit == 0 {
            return;
        }
        let rss = resident_fast().unwrap_or(0);
        if rss.saturating_add(bytes as u64) >= limit {
            // no panic message: the runner reports the limit
            std::panic::resume_unwind(Box::new(LimitUnwind(Limit::Memory)));
        }
    }

    #[cfg(unix)]
    extern "C" fn on_sigint(_: libc::c_int) {
        // async-signal-safe: one atomic store
        INTERRUPTED.store(true, Relaxed);
    }

    /// SIGINT (Ctrl-C) and SIGTERM (`kill`, a job scheduler's end of time) both interrupt:
    /// the run ends with its statistics and a complete report, not silently.
    #[cfg(unix)]
    fn install_sigint() {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: the handler only stores to an atomic, which is async-signal-safe
            unsafe {
                libc::signal(
                    signal,
                    on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
                );
            }
        }
    }

    #[cfg(not(unix))]
    fn install_sigint() {}
}

#[cfg(all(test, unix))]
mod clock_tests {
    use super::*;

    #[test]
    fn a_cpu_clock_does_not_count_time_off_the_cpu() {
        let cpu = Clock::new(true);
        let wall = Clock::new(false);
        std::thread::sleep(Duration::from_millis(300));
        assert!(wall.spent() >= Duration::from_millis(300));
        // sleeping (as a descheduled thread on a busy machine) uses no CPU time
        assert!(
            cpu.spent() < Duration::from_millis(100),
            "{:?}",
            cpu.spent()
        );
        let limits = Limits {
            timeout: Some(Duration::from_millis(200)),
            cpu_time: true,
            ..Limits::default()
        };
        assert!(!Clock::start(&limits).expired(&limits) && !cpu.expired(&limits));
        assert!(wall.expired(&limits));
        // busy work does count: spin until the CPU clock has seen 50 ms of it (on a loaded
        // machine that takes longer in wall time; a clock that never counts it fails at 60 s)
        let busy = Clock::new(true);
        let t = Instant::now();
        let mut x = 0u64;
        while busy.spent() < Duration::from_millis(50) && t.elapsed() < Duration::from_secs(60) {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
        assert!(
            busy.spent() >= Duration::from_millis(50),
            "{:?}",
            busy.spent()
        );
    }
}
