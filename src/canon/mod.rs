//! Canonical forms and fingerprints of states.
//!
//! Two states are the same state iff their canonical bytes are equal. The encoding walks the
//! state in a fixed order — the shared globals, then each thread in order with its atomic flag,
//! its thread-local globals and its frames bottom to top (procedure, pc, locals). The layout of
//! every part is fixed by the program, so the encoding needs no separators. Heap objects, once
//! the language has them, are renamed by this same depth-first walk and garbage is dropped.
//!
//! The explicit search's visited set stores a 64-bit fingerprint of the bytes (hash compaction)
//! in flat tables ([`FpTable`]) unless `--exact` asks for the bytes themselves; the summary engine keys its
//! tables by 128-bit fingerprints.

use crate::runtime::{Addr, Frame, Move, Object, StackDigest, State, Thread, Value};
use zingrs_lang::ir::Program;

mod deep;
mod fp_table;
mod segmented;
mod shared_table;
mod symmetry;
mod visited;
pub use fp_table::FpTable;
pub use segmented::{Canon, MoveFp, SegmentHasher};
pub use shared_table::{SharedExact, SharedFpTable};
pub use visited::{SharedVisited, Visited};
use xxhash_rust::xxh3::{xxh3_128, xxh3_64};

/// Per procedure and pc, the locals of a thread's *top* frame that the walk writes as `false`
/// whatever they hold: those no path from the pc reads before writing them (dead variables,
/// seed 001 §3.3), so that states that differ only in them are one state. References are
/// written as they are (the numbering of the heap walk stays that of the plain walk), and so
/// are the frames below the top. Empty ([`NO_DEAD`]): the plain walk.
#[derive(Debug, Default)]
pub struct DeadLocals {
    dead: Vec<Vec<Box<[u32]>>>,
}

/// No dead locals: every local is written.
pub static NO_DEAD: DeadLocals = DeadLocals { dead: Vec::new() };

impl DeadLocals {
    /// The dead locals of `m`'s program: none where a handler may run in the frame (inside a
    /// `try` body a callee's exception reaches the frame's handler, which liveness does not
    /// follow), and none at all if an `enforce` invariant may read them.
    pub fn new(m: &crate::runtime::Machine) -> DeadLocals {
        let program = m.program;
        if program
            .procs
            .iter()
            .any(|p| p.nodes.iter().any(|n| n.invariant.is_some()))
        {
            return DeadLocals::default();
        }
        let dead = program
            .procs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (0..p.nodes.len() as u32)
                    .map(|pc| {
                        if p.tries.iter().any(|t| t.body.contains(&pc)) {
                            return Box::default();
                        }
                        (0..p.locals.len())
                            .filter(|&l| !m.live_before(i as u32, pc, l))
                            .map(|l| l as u32)
                            .collect()
                    })
                    .collect()
            })
            .collect();
        DeadLocals { dead }
    }

    #[inline(always)]
    fn at(&self, proc: u32, pc: u32) -> &[u32] {
        match self.dead.get(proc as usize) {
            Some(p) => p.get(pc as usize).map_or(&[], |d| d),
            None => &[],
        }
    }
}

/// Whether the threads of `program` are interchangeable, so that the search may take states
/// that differ only in the order of their thread lists as one state (symmetry reduction).
///
/// That holds when no statement reads a thread's position: a thread is all in its [`Thread`]
/// (frames, thread-local globals, atomic flag; the atomic owner is that flag), a broadcast
/// writes every other thread whose frame fits, the live-thread bound counts threads, deadlock
/// asks every thread, a new thread goes to the end of the list, locks and channels are globals
/// or objects. The one exception is Zing's `self`, a process's position in the list: a model
/// that reads it anywhere is left unreduced. Completed Zing processes stay in the list, with
/// no frames; their position, too, is observable only through `self`. The heap is no
/// obstacle: the canonical walk visits the threads in an order of their own (see
/// `symmetry.rs`), so it numbers objects as the same state reordered would. Threads running
/// different code have different parts and are simply never equal.
pub fn symmetric_threads(program: &Program) -> bool {
    !program.uses_self
}

/// A 128-bit hash of a state's canonical bytes (the summary engine's keys).
pub type Fingerprint = u128;

/// Renames heap addresses in the order the walk first meets them, and remembers which objects
/// have to be written, in that order.
#[derive(Default)]
struct Renaming {
    numbers: Numbers,
    pending: Vec<Addr>,
}

/// Canonical numbers of addresses: a short list searched in order while the heap is small (the
/// common case; no hashing, no allocation beyond the list), a hash map beyond that.
#[derive(Default)]
pub struct Numbers {
    small: Vec<(Addr, u32)>,
    big: Option<std::collections::HashMap<Addr, u32, ahash::RandomState>>,
}

/// Beyond this many objects [`Numbers`] switches to a hash map.
const SMALL: usize = 32;

impl Numbers {
    /// The canonical number of `a`, if the walk reached it.
    pub fn get(&self, a: Addr) -> Option<u32> {
        match &self.big {
            Some(m) => m.get(&a).copied(),
            None => self.small.iter().find(|&&(x, _)| x == a).map(|&(_, n)| n),
        }
    }

    fn len(&self) -> usize {
        self.big.as_ref().map_or(self.small.len(), |m| m.len())
    }

    fn insert(&mut self, a: Addr, n: u32) {
        match &mut self.big {
            Some(m) => {
                m.insert(a, n);
            }
            None if self.small.len() < SMALL => self.small.push((a, n)),
            None => {
                // a fixed-seed hasher: a randomly seeded one per state costs more than the state
                let mut m = std::collections::HashMap::with_capacity_and_hasher(
                    4 * SMALL,
                    ahash::RandomState::with_seeds(1, 2, 3, 4),
                );
                m.extend(self.small.drain(..));
                m.insert(a, n);
                self.big = Some(m);
            }
        }
    }
}

/// How the walk numbers heap addresses: [`Renaming`] keeps the numbers for the caller,
/// [`Encoder`] reuses its tables from state to state.
trait Rename {
    /// The canonical number of `a`, numbering it (and queueing it to be written) if new.
    fn number(&mut self, a: Addr) -> u32;
    /// The `i`-th numbered address, if there are that many.
    fn numbered(&self, i: usize) -> Option<Addr>;
}

impl Rename for Renaming {
    #[inline]
    fn number(&mut self, a: Addr) -> u32 {
        if let Some(n) = self.numbers.get(a) {
            return n;
        }
        let n = self.numbers.len() as u32 + 1;
        self.numbers.insert(a, n);
        self.pending.push(a);
        n
    }
    #[inline]
    fn numbered(&self, i: usize) -> Option<Addr> {
        self.pending.get(i).copied()
    }
}

/// Addresses below this are numbered through a direct table in [`Encoder`].
const DENSE: usize = 1 << 16;

/// A reusable canonical encoder: the same bytes as [`encode`], without allocating per state.
/// Addresses are numbered through a table indexed by address (cleared after each state), and
/// a hash map for the rare large ones.
#[derive(Default)]
pub struct Encoder {
    /// Per address below [`DENSE`]: its canonical number, 0 if not numbered yet.
    dense: Vec<u32>,
    sparse: ahash::AHashMap<Addr, u32>,
    /// The numbered addresses in order (number i + 1 is `order[i]`).
    order: Vec<Addr>,
    /// Orders the threads for [`Encoder::encode_symmetric_marked`] (made on first use).
    sorter: Option<Box<symmetry::Sorter>>,
}

impl Rename for Encoder {
    #[inline]
    fn number(&mut self, a: Addr) -> u32 {
        let next = self.order.len() as u32 + 1;
        let slot = if (a as usize) < DENSE {
            if self.dense.len() <= a as usize {
                self.dense
                    .resize((a as usize + 1).next_power_of_two().min(DENSE), 0);
            }
            &mut self.dense[a as usize]
        } else {
            self.sparse.entry(a).or_insert(0)
        };
        if *slot == 0 {
            *slot = next;
            self.order.push(a);
        }
        *slot
    }
    #[inline]
    fn numbered(&self, i: usize) -> Option<Addr> {
        self.order.get(i).copied()
    }
}

impl Encoder {
    /// [`Encoder::encode`] with `dead`'s locals written as `false` (see [`DeadLocals`]).
    pub fn encode_masked(&mut self, state: &State, dead: &DeadLocals, buf: &mut Vec<u8>) {
        walk(state, &[], buf, self, dead);
        self.reset();
    }

    /// [`Encoder::encode_masked`] up to the order of the threads (symmetry reduction, for
    /// programs where [`symmetric_threads`] holds): the threads are walked in a canonical
    /// order (`symmetry.rs`), so that states whose thread lists are permutations of each other
    /// encode equally. Each part is self-delimiting (its layout follows from its frames), and
    /// the number of threads is written before them, so the bytes stay unambiguous.
    pub fn encode_symmetric(&mut self, state: &State, dead: &DeadLocals, buf: &mut Vec<u8>) {
        self.encode_symmetric_marked(state, dead, &[], buf);
    }

    /// [`Encoder::encode_symmetric`] with some threads kept distinguished: `marks` are thread
    /// positions (a position past the last thread marks none), and each thread's part starts
    /// with a byte whose bit j says whether the thread is at `marks[j]`. States then encode
    /// equally exactly when a permutation of their threads maps the one onto the other and
    /// each mark onto the same mark: the search's per-state bookkeeping that names threads
    /// (the context bound's running thread, cooperative scheduling's held one) follows the
    /// permutation. With no marks the bytes are those of [`Encoder::encode_symmetric`].
    ///
    /// The globals and the objects they reach are written first; then the threads' parts,
    /// walked in the order of their keys where that order numbers objects (`symmetry.rs`),
    /// written sorted; then the objects only threads reach.
    pub fn encode_symmetric_marked(
        &mut self,
        state: &State,
        dead: &DeadLocals,
        marks: &[u32],
        buf: &mut Vec<u8>,
    ) {
        debug_assert!(marks.len() <= 8, "one byte of marks");
        let mut sorter = self.sorter.take().unwrap_or_default();
        globals_part(state, buf, self);
        // the objects the globals reach come first (`symmetry.rs`)
        let mut i = 0;
        while let Some(a) = self.numbered(i) {
            i += 1;
            object_part(state, a, buf, self);
        }
        let shared = i;
        let mut parts = std::mem::take(&mut sorter.parts);
        parts.resize_with(state.threads.len(), Vec::new);
        let mut write = |enc: &mut Encoder, order: &mut dyn Iterator<Item = usize>| {
            for (p, i) in parts.iter_mut().zip(order) {
                p.clear();
                if !marks.is_empty() {
                    p.push(symmetry::mark_bits(marks, i));
                }
                thread_part(&state.threads[i], p, enc, dead);
            }
        };
        write(self, &mut (0..state.threads.len()));
        if self.order.len() > shared {
            // a thread holds an object the globals do not reach: the threads' canonical order
            // numbers those objects
            self.truncate(shared);
            sorter.keys(state, dead, marks);
            sorter.sort(state.threads.len());
            write(self, &mut sorter.order.iter().map(|&i| i as usize));
        }
        // the parts so numbered, written sorted
        parts.sort_unstable();
        for p in &parts {
            buf.extend_from_slice(p);
        }
        sorter.parts = parts;
        while let Some(a) = self.numbered(i) {
            i += 1;
            object_part(state, a, buf, self);
        }
        self.reset();
        self.sorter = Some(sorter);
    }

    /// Appends the canonical bytes of `state` to `buf` (see [`encode`]).
    pub fn encode(&mut self, state: &State, buf: &mut Vec<u8>) {
        walk(state, &[], buf, self, &NO_DEAD);
        self.reset();
    }

    /// Forgets the numbering of the last state.
    fn reset(&mut self) {
        for &a in &self.order {
            if (a as usize) < DENSE {
                self.dense[a as usize] = 0;
            }
        }
        self.order.clear();
        if !self.sparse.is_empty() {
            self.sparse.clear();
        }
    }
}

/// Appends `x` in LEB128: seven bits a byte, low bits first, the top bit set on every byte but
/// the last. The code is prefix-free, so the encoding of a state stays unambiguous, and the
/// small numbers that make up most of a state take one byte each.
#[inline(always)]
fn varint(buf: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        buf.push(x as u8 | 0x80);
        x >>= 7;
    }
    buf.push(x as u8);
}

/// A value: its tag and payload in one varint (booleans are 0 and 1, null is 2, an integer
/// 3 + 4·zigzag(i) when that fits, a reference 4 + 4·its canonical number).
#[inline(always)]
fn value<R: Rename>(buf: &mut Vec<u8>, v: Value, ren: &mut R) {
    match v {
        Value::Bool(b) => buf.push(b as u8),
        Value::Null => buf.push(2),
        Value::Int(i) => {
            let z = ((i << 1) ^ (i >> 63)) as u64;
            if z < 1 << 61 {
                varint(buf, 3 + 4 * z);
            } else {
                // the largest magnitudes: a marker, then all 64 bits
                buf.push(5);
                buf.extend_from_slice(&i.to_le_bytes());
            }
        }
        Value::Ref(a) => varint(buf, 4 + 4 * ren.number(a) as u64),
    }
}

/// Appends the canonical bytes of `state` to `buf`: the roots (globals, then each thread's
/// atomic flag, thread-local globals and frames bottom to top), then every reachable object in
/// the order the walk first met it — its class, its number of fields, and the fields — with
/// addresses replaced by those numbers. Unreachable objects (garbage) are not written, so
/// states that differ only in garbage or in the choice of addresses encode equally (seed 004
/// §4).
pub fn encode(state: &State, buf: &mut Vec<u8>) {
    encode_with_roots(state, &[], buf);
}

/// [`encode`] with `extra` addresses as further roots after the threads (the written
/// addresses δ of seed 004 §5, kept even when they became garbage). Returns the canonical
/// number of every reachable address.
pub fn encode_with_roots(state: &State, extra: &[Addr], buf: &mut Vec<u8>) -> Numbers {
    let mut ren = Renaming::default();
    walk(state, extra, buf, &mut ren, &NO_DEAD);
    ren.numbers
}

/// The canonical walk (see [`encode`]). Counts, procedures, pcs and class ids are varints.
#[inline]
fn walk<R: Rename>(
    state: &State,
    extra: &[Addr],
    buf: &mut Vec<u8>,
    ren: &mut R,
    dead: &DeadLocals,
) {
    globals_part(state, buf, ren);
    for t in state.threads.iter() {
        thread_part(t, buf, ren, dead);
    }
    for &a in extra {
        value(buf, Value::Ref(a), ren);
    }
    let mut i = 0;
    while let Some(a) = ren.numbered(i) {
        i += 1;
        object_part(state, a, buf, ren);
    }
}

/// The walk's first part: the shared globals and the number of threads.
#[inline]
fn globals_part<R: Rename>(state: &State, buf: &mut Vec<u8>, ren: &mut R) {
    globals_values(&state.globals, state.threads.len(), buf, ren);
}

/// [`globals_part`] from the globals' values and the number of threads.
#[inline]
fn globals_values<R: Rename>(globals: &[Value], threads: usize, buf: &mut Vec<u8>, ren: &mut R) {
    for &v in globals {
        value(buf, v, ren);
    }
    varint(buf, threads as u64);
}

/// One thread's part of the walk: its atomic flag (and step count inside a region), its
/// thread-local globals, the frames below the top ([`below_part`]) and the top frame.
#[inline]
fn thread_part<R: Rename>(t: &Thread, buf: &mut Vec<u8>, ren: &mut R, dead: &DeadLocals) {
    thread_head(
        t.atomic,
        t.atomic_steps,
        &t.thread_locals,
        t.stack.depth(),
        buf,
        ren,
    );
    if let Some(below) = t.stack.below() {
        below_part(below, buf, ren);
    }
    if let Some(f) = t.stack.top() {
        top_frame_part(f.proc, f.pc, &f.locals, buf, ren, dead);
    }
}

/// [`thread_part`] of thread `mv.tid` of a state after the move `mv` of it.
#[inline]
fn moved_thread_part<R: Rename>(
    t: &Thread,
    mv: &Move,
    buf: &mut Vec<u8>,
    ren: &mut R,
    dead: &DeadLocals,
) {
    let tl = mv.thread_locals.as_ref().unwrap_or(&t.thread_locals);
    thread_head(mv.atomic, mv.atomic_steps, tl, t.stack.depth(), buf, ren);
    if let Some(below) = t.stack.below() {
        below_part(below, buf, ren);
    }
    let top = t.stack.top().expect("a moved thread has a frame");
    top_frame_part(top.proc, mv.pc, &mv.locals, buf, ren, dead);
}

/// Stacks up to this deep are written frame by frame; deeper ones, when the frames below the
/// top hold few distinct references, as the digest of those frames.
pub const DIGESTED_DEPTH: u32 = 32;

/// The most distinct references a digested stack may hold; beyond them it is written out.
const DIGESTED_REFS: usize = 64;

/// The frames below a thread's top frame, bottom up. Below a deep stack (deep recursion) they
/// are written as a marker, their 128-bit digest, which each stack node computes once
/// ([`Stack::digest`]), and the canonical numbers of the distinct references they hold, in
/// the order a frame-by-frame walk first meets them: that walk's numbering, and so the rest of
/// the encoding, is unchanged, and writing the frames out on every step made deep recursion
/// quadratic in its depth. The marker keeps the two forms apart (the depth, written before,
/// is the same).
#[inline]
fn below_part<R: Rename>(below: &crate::runtime::Stack, buf: &mut Vec<u8>, ren: &mut R) {
    if below.depth() >= DIGESTED_DEPTH {
        match below.digest(frame_digest) {
            Some(d) => {
                buf.push(1);
                buf.extend_from_slice(&d.hash.to_le_bytes());
                varint(buf, d.refs.len() as u64);
                for &a in d.refs.iter() {
                    varint(buf, ren.number(a) as u64);
                }
                return;
            }
            None => buf.push(0),
        }
    }
    below.for_each_bottom_up(|f| frame_part(f.proc, f.pc, &f.locals, buf, ren));
}

/// Numbers references by their position among the distinct addresses of a stack's frames.
struct LocalRefs(Vec<Addr>);

impl Rename for LocalRefs {
    fn number(&mut self, a: Addr) -> u32 {
        match self.0.iter().position(|&x| x == a) {
            Some(i) => i as u32,
            None => {
                self.0.push(a);
                self.0.len() as u32 - 1
            }
        }
    }
    fn numbered(&self, i: usize) -> Option<Addr> {
        self.0.get(i).copied()
    }
}

/// One step of a stack's digest: the digest below and the frame's bytes with each reference
/// numbered by its first appearance in the stack, hashed; `None` when the stack holds more
/// than [`DIGESTED_REFS`] distinct references.
fn frame_digest(below: &StackDigest, f: &Frame) -> Option<StackDigest> {
    let mut ren = LocalRefs(below.refs.to_vec());
    let mut buf = Vec::with_capacity(16 + 4 * f.locals.len() + 8);
    buf.extend_from_slice(&below.hash.to_le_bytes());
    frame_part(f.proc, f.pc, &f.locals, &mut buf, &mut ren);
    if ren.0.len() > DIGESTED_REFS {
        return None;
    }
    let refs = if ren.0.len() == below.refs.len() {
        below.refs.clone()
    } else {
        ren.0.into()
    };
    Some(StackDigest {
        hash: xxhash_rust::xxh3::xxh3_128(&buf),
        refs,
    })
}

/// A thread's atomic flag (and step count inside a region), thread-local globals and depth.
#[inline(always)]
fn thread_head<R: Rename>(
    atomic: bool,
    atomic_steps: u32,
    thread_locals: &[Value],
    depth: u32,
    buf: &mut Vec<u8>,
    ren: &mut R,
) {
    buf.push(atomic as u8);
    if atomic_steps != 0 {
        varint(buf, atomic_steps as u64);
    }
    for &v in thread_locals {
        value(buf, v, ren);
    }
    varint(buf, depth as u64);
}

/// A thread's top frame: [`frame_part`] with the locals dead at `pc` written as `false`
/// (references excepted; see [`DeadLocals`]).
#[inline(always)]
fn top_frame_part<R: Rename>(
    proc: u32,
    pc: u32,
    locals: &[Value],
    buf: &mut Vec<u8>,
    ren: &mut R,
    dead: &DeadLocals,
) {
    let dead = dead.at(proc, pc);
    if dead.is_empty() {
        return frame_part(proc, pc, locals, buf, ren);
    }
    varint(buf, proc as u64);
    varint(buf, pc as u64);
    for v in masked(locals, dead) {
        value(buf, v, ren);
    }
}

/// `locals` as a top frame's part writes them: those whose index is in `dead` (ascending) as
/// `false`, except references (see [`DeadLocals`]: the heap's numbering stays the plain walk's).
#[inline(always)]
fn masked<'a>(locals: &'a [Value], dead: &'a [u32]) -> impl Iterator<Item = Value> + 'a {
    let mut next = dead.iter().peekable();
    locals.iter().enumerate().map(move |(i, &v)| {
        let is_dead = next.next_if(|&&d| d as usize == i).is_some();
        match v {
            Value::Ref(_) => v,
            _ if is_dead => Value::Bool(false),
            _ => v,
        }
    })
}

#[inline(always)]
fn frame_part<R: Rename>(proc: u32, pc: u32, locals: &[Value], buf: &mut Vec<u8>, ren: &mut R) {
    varint(buf, proc as u64);
    varint(buf, pc as u64);
    for &v in locals {
        value(buf, v, ren);
    }
}

/// One reachable object's part of the walk: its class and number of fields (class ids are
/// shifted past the dangling mark: objects of one class may differ in length — arrays, sets,
/// channels), then the fields; a dangling reference is the mark alone.
#[inline]
fn object_part<R: Rename>(state: &State, a: Addr, buf: &mut Vec<u8>, ren: &mut R) {
    match state.heap.get(&a) {
        Some(obj) => object_fields(obj, buf, ren),
        None => buf.push(0),
    }
}

#[inline]
fn object_fields<R: Rename>(obj: &Object, buf: &mut Vec<u8>, ren: &mut R) {
    object_values(obj.class, &obj.fields, buf, ren);
}

/// [`object_fields`] from an object's class and fields.
#[inline]
fn object_values<R: Rename>(class: u32, fields: &[Value], buf: &mut Vec<u8>, ren: &mut R) {
    varint(buf, class as u64 + 1);
    varint(buf, fields.len() as u64);
    for &v in fields {
        value(buf, v, ren);
    }
}

/// The fingerprint of canonical bytes.
#[inline]
pub fn fingerprint(bytes: &[u8]) -> Fingerprint {
    xxh3_128(bytes)
}

/// The 64-bit fingerprint that the explicit search's visited set stores (salted: see
/// [`salted`]).
#[inline]
pub fn fingerprint64(bytes: &[u8]) -> u64 {
    match salt() {
        0 => xxh3_64(bytes),
        s => xxhash_rust::xxh3::xxh3_64_with_seed(bytes, s),
    }
}

thread_local! {
    /// The fingerprint salt of the search running on this thread ([`salted`]).
    static SALT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The fingerprint salt of the search running on this thread: 0 (today's fingerprints)
/// unless a search runs under `check --seed`.
#[inline(always)]
pub(crate) fn salt() -> u64 {
    SALT.with(|s| s.get())
}

/// Runs `f` with the explicit search's 64-bit fingerprints salted by `salt` on this thread
/// (`check --seed`): every part's hash seed, and the hash of whole canonical bytes, take it
/// in, so two runs with different salts collide (hash compaction's omissions) on different
/// pairs of states, as SPIN's swarm varies its hash functions. Salt 0 is the unsalted hash.
/// Each thread of a search must run under the same salt (the parallel search's workers do).
pub fn salted<R>(salt: u64, f: impl FnOnce() -> R) -> R {
    struct Restore(u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            SALT.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SALT.with(|s| s.replace(salt)));
    f()
}

/// An upper bound on the probability that hash compaction in the explicit search's visited set
/// merged two distinct states among `n` stored ones: it keeps 64-bit fingerprints, so the
/// birthday bound n²/2⁶⁵, plus n/2⁶⁴ for the fingerprint 0 (the table's empty mark), which is
/// stored as 1.
pub fn omission_bound(n: u64) -> f64 {
    let n = n as f64;
    n * n / 2f64.powi(65) + n / 2f64.powi(64)
}

#[cfg(test)]
mod tests;
