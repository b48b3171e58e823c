//! The processes of a distributed search and the data between them: a [`Cluster`] (who and
//! where), the TCP connections made by hand (a handshake that refuses a peer checking
//! another model or with another process count; a deadline instead of timely's endless
//! retries; nothing printed on standard output), then timely's own networking over them, its
//! workers run on threads of ours, and one exchange channel per worker that a search drives a
//! round at a time ([`Net::round`]).
//!
//! A lost peer: timely's network threads panic when a connection breaks ("timely
//! communication error"). The hook installed here records such a panic as a clear message
//! naming the process lost; every worker sees it in its round within a park's timeout and
//! stops, and [`run`] returns the message as an error (the library's
//! `CheckError::Incomplete`, exit 9 on the command line): the others' results are
//! incomplete, so no verdict but "inconclusive" may come out of them, and the library never
//! ends its caller's process.

use super::Msg;
use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

/// The base of the ports of processes on one machine without a host file: process I
/// listens on `DEFAULT_PORT + I` of 127.0.0.1 (timely's own default base).
pub const DEFAULT_PORT: u16 = 2101;

/// How long a process waits for the others to start and connect, by default.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// The processes of a distributed search (`check --processes N --process I [--hostfile F]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// How many processes search together.
    pub processes: usize,
    /// This one's index, 0-based; process 0 prints the report.
    pub process: usize,
    /// `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    /// How long to wait for the other processes to connect.
    pub connect_timeout: Duration,
    /// States each worker expands per round at most (flow control: what is in flight at once
    /// is bounded by this times the successors per state, per worker).
    pub batch: usize,
    /// States of a level a worker, on average, below which every successor for another
    /// worker's shard crosses whole, as bytes; on wider levels most stay with the worker that
    /// reached them, announced to their owner by their fingerprint (a claim, which costs the
    /// level one round more). [`NARROW`] by default; 0 claims on every level, `u64::MAX` on
    /// none (the search's first form: a baseline to measure against, and a test of the
    /// bytes' path).
    pub narrow: u64,
}

/// [`Cluster::narrow`] by default: below 256 states a worker, a round costs more than the
/// bytes of the level's states.
pub const NARROW: u64 = 256;

/// States a worker expands per round by default.
pub const BATCH: usize = 4096;

impl Cluster {
    /// `processes` processes on this machine over loopback, listening on `port + I`.
    pub fn loopback(processes: usize, process: usize, port: u16) -> Result<Cluster, String> {
        let addresses = (0..processes)
            .map(|i| {
                u16::try_from(usize::from(port) + i)
                    .map(|p| format!("127.0.0.1:{p}"))
                    .map_err(|_| {
                        format!("--port {port}: the ports of {processes} processes pass 65535")
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Cluster::new(processes, process, addresses)
    }

    /// The processes a host file lists (one `host` or `host:port` a line, process 0 first;
    /// a host without a port gets `port + I`; `#` starts a comment, blank lines are skipped).
    pub fn from_hostfile(
        text: &str,
        processes: usize,
        process: usize,
        port: u16,
    ) -> Result<Cluster, String> {
        let hosts: Vec<&str> = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .collect();
        if hosts.len() < processes {
            return Err(format!(
                "the host file lists {} hosts, fewer than --processes {processes}",
                hosts.len()
            ));
        }
        let addresses = hosts[..processes]
            .iter()
            .enumerate()
            .map(|(i, h)| {
                if h.rsplit_once(':')
                    .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
                {
                    Ok(h.to_string())
                } else {
                    u16::try_from(usize::from(port) + i)
                        .map(|p| format!("{h}:{p}"))
                        .map_err(|_| format!("{h}: port {port} + {i} passes 65535"))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Cluster::new(processes, process, addresses)
    }

    fn new(processes: usize, process: usize, addresses: Vec<String>) -> Result<Cluster, String> {
        if processes == 0 {
            return Err("--processes must be at least 1".into());
        }
        if process >= processes {
            return Err(format!(
                "--process {process} is not below --processes {processes} (processes are numbered from 0)"
            ));
        }
        Ok(Cluster {
            processes,
            process,
            addresses,
            connect_timeout: CONNECT_TIMEOUT,
            batch: BATCH,
            narrow: NARROW,
        })
    }
}

/// A distributed search running in this process, as the panic hook sees it: who this
/// process is and the first problem seen (a lost connection, a worker's panic) as the
/// message the search returns.
struct Active {
    me: usize,
    addresses: Vec<String>,
    problem: OnceLock<String>,
}

impl Active {
    /// The problem recorded, if any: the search has to stop, inconclusive.
    fn problem(&self) -> Option<&str> {
        self.problem.get().map(String::as_str)
    }
}

/// The distributed searches running in this process (usually one). The hook cannot tell
/// which search a network thread served (timely names them by peer only), so a lost
/// connection stops every search running: inconclusive, never a wrong verdict.
static ACTIVE: Mutex<Vec<Arc<Active>>> = Mutex::new(Vec::new());
static HOOKED: AtomicBool = AtomicBool::new(false);

/// The payload a worker unwinds with once it has seen a problem (unwound without the panic
/// hook, so without a message: the search returns the problem recorded).
struct Stopped;

fn running() -> std::sync::MutexGuard<'static, Vec<Arc<Active>>> {
    ACTIVE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Installs (once) the hook that records a panic of timely's network threads (a connection
/// lost: a peer killed, a cable pulled) or of a worker of a running search, as a message
/// naming the peer, in every running search ([`Active`]), and prints nothing: the workers
/// notice it within a park's timeout ([`Net::round`]) and the search returns it as an error.
/// Other panics go to the hook that was there before.
fn hook_lost_peers() {
    if HOOKED.swap(true, Relaxed) {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("");
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        let network = name.starts_with("timely:recv-")
            || name.starts_with("timely:send-")
            || message.starts_with("timely communication error")
            || message.contains("MergeQueue poisoned");
        let worker = name.starts_with("timely:work-");
        let runs = running();
        if runs.is_empty() || !(network || worker) {
            // not ours: a network thread of a search already over is quiet (its search
            // returned), anything else is reported as it would be without this hook
            drop(runs);
            if !network {
                previous(info);
            }
            return;
        }
        let peer = name
            .strip_prefix("timely:recv-")
            .or_else(|| name.strip_prefix("timely:send-"))
            .and_then(|p| p.parse::<usize>().ok());
        for run in runs.iter() {
            let me = run.me;
            let text = if network {
                let who = match peer {
                    Some(p) => format!(
                        "process {p} ({})",
                        run.addresses.get(p).map_or("?", String::as_str)
                    ),
                    None => "another process".to_string(),
                };
                format!("process {me} lost its connection to {who}: {message}")
            } else {
                format!("process {me}: a worker failed: {message}")
            };
            let _ = run.problem.set(format!(
                "{text}; the distributed search is incomplete, so its result is inconclusive (exit {})",
                crate::report::exit::LIMIT
            ));
        }
        drop(runs);
        if worker && !network {
            // a bug, not a loss: said as any panic is
            previous(info);
        }
    }));
}

/// A handshake: the magic, the sender's index, the process count, the model's hash.
fn hello(index: usize, processes: usize, model: u64) -> [u8; 28] {
    let mut b = [0u8; 28];
    b[..4].copy_from_slice(b"ZRS1");
    b[4..12].copy_from_slice(&(index as u64).to_le_bytes());
    b[12..20].copy_from_slice(&(processes as u64).to_le_bytes());
    b[20..28].copy_from_slice(&model.to_le_bytes());
    b
}

/// Connects to every other process: to those before this one (retrying until the deadline),
/// and accepting those after it; each connection starts with [`hello`] both ways.
fn connect(cluster: &Cluster, model: u64) -> Result<Vec<Option<TcpStream>>, String> {
    let me = cluster.process;
    let n = cluster.processes;
    let deadline = Instant::now() + cluster.connect_timeout;
    let listener = TcpListener::bind(&cluster.addresses[me]).map_err(|e| {
        format!(
            "process {me} cannot listen on {}: {e}",
            cluster.addresses[me]
        )
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("listening socket: {e}"))?;
    let mine = hello(me, n, model);
    let check = |stream: &mut TcpStream, expect: Option<usize>| -> Result<usize, String> {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let mut theirs = [0u8; 28];
        stream
            .read_exact(&mut theirs)
            .map_err(|e| format!("process {me}: a peer's greeting: {e}"))?;
        stream.set_read_timeout(None).map_err(|e| e.to_string())?;
        if &theirs[..4] != b"ZRS1" {
            return Err(format!(
                "process {me}: a connection that is not a zingrs process of this version"
            ));
        }
        let word = |i: usize| u64::from_le_bytes(theirs[i..i + 8].try_into().unwrap_or([0; 8]));
        let (index, processes, theirs_model) = (word(4) as usize, word(12) as usize, word(20));
        if processes != n {
            return Err(format!(
                "process {index} was started with --processes {processes}, this one (process {me}) with {n}"
            ));
        }
        if theirs_model != model {
            return Err(format!(
                "process {index} checks another model (or the same with other options) than process {me}"
            ));
        }
        if expect.is_some_and(|e| e != index) || index >= n || index == me {
            return Err(format!(
                "process {me}: a peer says it is process {index}, not the one expected"
            ));
        }
        Ok(index)
    };
    let mut sockets: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    for (j, address) in cluster.addresses.iter().enumerate().take(me) {
        let mut stream = loop {
            // resolved again on every try: a peer's name may appear only when it starts (a
            // Kubernetes pod's DNS record)
            let found = address.to_socket_addrs().map(|addrs| {
                addrs
                    .into_iter()
                    .find_map(|a| TcpStream::connect_timeout(&a, Duration::from_secs(1)).ok())
            });
            if let Ok(Some(s)) = found {
                break s;
            }
            if Instant::now() >= deadline {
                let why = match found {
                    Err(e) => format!("its address does not resolve: {e}"),
                    Ok(_) => "no answer".to_string(),
                };
                return Err(format!(
                    "process {me} could not connect to process {j} at {address} within {} s ({why})",
                    cluster.connect_timeout.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let _ = stream.set_nodelay(true);
        stream
            .write_all(&mine)
            .map_err(|e| format!("process {me} greeting process {j}: {e}"))?;
        check(&mut stream, Some(j))?;
        sockets[j] = Some(stream);
    }
    let mut missing = n - me - 1;
    while missing > 0 {
        match listener.accept() {
            Ok((mut stream, _)) => {
                stream.set_nonblocking(false).map_err(|e| e.to_string())?;
                let _ = stream.set_nodelay(true);
                // greet first: a peer that disagrees learns why from its own check
                stream
                    .write_all(&mine)
                    .map_err(|e| format!("process {me} greeting a peer: {e}"))?;
                let j = check(&mut stream, None)?;
                if j < me || sockets[j].is_some() {
                    return Err(format!("process {me}: process {j} connected twice"));
                }
                sockets[j] = Some(stream);
                missing -= 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let absent: Vec<String> = (me + 1..n)
                        .filter(|&j| sockets[j].is_none())
                        .map(|j| j.to_string())
                        .collect();
                    return Err(format!(
                        "process {me}: process(es) {} did not connect within {} s",
                        absent.join(", "),
                        cluster.connect_timeout.as_secs()
                    ));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(format!("process {me} accepting connections: {e}")),
        }
    }
    Ok(sockets)
}

/// One worker's end of the exchange: messages in, rounds, messages out.
pub(super) struct Net<'w> {
    worker: &'w mut timely::worker::Worker,
    input: InputHandle<u64, timely::container::CapacityContainerBuilder<Vec<(u32, Msg)>>>,
    probe: ProbeHandle<u64>,
    /// What has arrived, by the round it was sent in: a worker ahead may already send
    /// its next round's messages while this one waits for the end of the current round.
    inbox: Rc<RefCell<Vec<(u64, Msg)>>>,
    round: u64,
    /// This search as the panic hook sees it (none for one process: no network).
    active: Option<Arc<Active>>,
    /// A problem was seen: the worker stops (see [`run`]).
    stopped: bool,
}

/// A round that could not end: a connection was lost or a worker failed (the message is
/// [`run`]'s error).
#[derive(Debug)]
pub(super) struct Lost;

impl Net<'_> {
    /// This worker's index among all workers of all processes.
    pub fn index(&self) -> usize {
        self.worker.index()
    }

    /// All workers of all processes.
    pub fn peers(&self) -> usize {
        self.worker.peers()
    }

    /// Whether a problem was recorded (a lost connection, a failed worker): marks this
    /// worker stopped.
    fn problem(&mut self) -> bool {
        self.stopped |= self.active.as_ref().is_some_and(|a| a.problem().is_some());
        self.stopped
    }

    /// Sends `out` (each to its worker), waits until every worker's messages of this round
    /// have arrived, and returns those sent to this one; [`Lost`] once a connection is lost
    /// (seen within a park's 20 ms: a round never waits for a peer that is gone).
    pub fn round(&mut self, out: &mut Vec<(u32, Msg)>) -> Result<Vec<Msg>, Lost> {
        if self.problem() {
            return Err(Lost);
        }
        for m in out.drain(..) {
            self.input.send(m);
        }
        let now = self.round;
        self.round += 1;
        self.input.advance_to(self.round);
        while self.probe.less_than(self.input.time()) {
            if self.problem() {
                return Err(Lost);
            }
            self.worker.step_or_park(Some(Duration::from_millis(20)));
        }
        let mut inbox = self.inbox.borrow_mut();
        let (this, later): (Vec<_>, Vec<_>) = std::mem::take(&mut *inbox)
            .into_iter()
            .partition(|(t, _)| *t <= now);
        *inbox = later;
        Ok(this.into_iter().map(|(_, m)| m).collect())
    }
}

/// Runs `work` on each of this process's `workers` workers, connected to the cluster's other
/// processes (without networking for one process), and returns what each returned, in
/// worker order. `model` identifies the check (the model and options): processes that
/// disagree on it refuse each other.
///
/// A lost connection (or a failed worker) is an error with the message the panic hook
/// recorded, returned to the caller: each worker sees it in its round ([`Net::round`]) and
/// unwinds (its work has returned and its state is dropped), and timely's network threads,
/// which may be blocked on a peer that is gone or have panicked, are left to end on their own
/// (detached, not joined: joining them could wait for ever or re-raise their panic).
pub(super) fn run<T: Send + 'static>(
    cluster: &Cluster,
    workers: usize,
    model: u64,
    work: impl Fn(&mut Net) -> T + Send + Sync + 'static,
) -> Result<Vec<T>, String> {
    let workers = workers.max(1);
    let refill = timely::communication::allocator::zero_copy::bytes_slab::BytesRefill {
        logic: std::sync::Arc::new(|size| {
            Box::new(vec![0_u8; size]) as Box<dyn std::ops::DerefMut<Target = [u8]> + Send>
        }),
        limit: None,
    };
    let (builders, comms, active) = if cluster.processes == 1 {
        let b = ProcessBuilder::new_typed_vector(workers, refill, None)
            .into_iter()
            .map(AllocatorBuilder::Process)
            .collect::<Vec<_>>();
        (b, None, None)
    } else {
        hook_lost_peers();
        let sockets = connect(cluster, model)?;
        let process = ProcessBuilder::new_typed_vector(workers, refill.clone(), None);
        let hooks = timely::communication::Hooks {
            refill,
            ..Default::default()
        };
        // registered before the network threads start: their first panic is recorded
        let active = Arc::new(Active {
            me: cluster.process,
            addresses: cluster.addresses.clone(),
            problem: OnceLock::new(),
        });
        running().push(active.clone());
        let started =
            initialize_networking_from_sockets(process, sockets, cluster.process, workers, hooks)
                .map_err(|e| format!("process {}: starting the network: {e}", cluster.process));
        let (b, g) = match started {
            Ok(bg) => bg,
            Err(e) => {
                retire(&active);
                return Err(e);
            }
        };
        (
            b.into_iter().map(AllocatorBuilder::Tcp).collect(),
            Some(g),
            Some(active),
        )
    };
    let watched = active.clone();
    let guards = timely::execute::execute_from(
        builders,
        Box::new(()),
        timely::WorkerConfig::default(),
        move |worker| {
            let mut input = InputHandle::new();
            let probe = ProbeHandle::new();
            let inbox: Rc<RefCell<Vec<(u64, Msg)>>> = Rc::default();
            let sink = inbox.clone();
            worker.dataflow::<u64, _, _>(|scope| {
                scope
                    .input_from(&mut input)
                    .container::<Vec<(u32, Msg)>>()
                    .unary::<timely::container::CapacityContainerBuilder<Vec<()>>, _, _, _>(
                        Exchange::new(|m: &(u32, Msg)| u64::from(m.0)),
                        "inbox",
                        move |_, _| {
                            move |input, _output| {
                                input.for_each(|cap, data| {
                                    let t = cap.least().copied().unwrap_or(0);
                                    sink.borrow_mut()
                                        .extend(data.drain(..).map(|(_, m)| (t, m)))
                                });
                            }
                        },
                    )
                    .probe_with(&probe);
            });
            let mut net = Net {
                worker,
                input,
                probe,
                inbox,
                round: 0,
                active: watched.clone(),
                stopped: false,
            };
            // the search's own stack, as the parallel search's workers have
            let out = stacker::grow(crate::search::WORKER_STACK, || work(&mut net));
            if net.stopped || net.problem() {
                // the dataflow cannot finish without the peer: leave it without waiting for
                // it (timely would step it for ever) and without closing the input (which
                // would write to a poisoned queue); unwinding drops this worker's state
                std::mem::forget(net.input);
                std::panic::resume_unwind(Box::new(Stopped));
            }
            // closing the input lets the dataflow finish everywhere
            drop(net.input);
            out
        },
    );
    let guards = match guards {
        Ok(g) => g,
        Err(e) => {
            if let Some(a) = &active {
                retire(a);
            }
            return Err(e);
        }
    };
    // joins the workers (each returns, or unwinds once it has seen a problem)
    let results = guards.join();
    let problem = active.as_ref().and_then(|a| {
        retire(a);
        a.problem().map(str::to_string)
    });
    let failed = results.iter().any(Result::is_err);
    if problem.is_some() || failed {
        // timely's network threads: some panicked, others may wait on a peer that is gone
        std::mem::forget(comms);
    } else {
        // joins timely's network threads: each ends when its peer has shut its side down
        drop(comms);
    }
    if let Some(p) = problem {
        return Err(p);
    }
    results
        .into_iter()
        .map(|r| r.map_err(|e| format!("a worker failed: {e}")))
        .collect()
}

/// Takes a search that is over off the hook's list.
fn retire(a: &Arc<Active>) {
    running().retain(|b| !Arc::ptr_eq(a, b));
}
