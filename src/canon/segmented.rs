//! Segmented fingerprints: the explicit search's 64-bit fingerprint of a state is the sum
//! (mod 2⁶⁴) of one hash per part of its canonical walk — the globals, each thread, each
//! reachable object — each hash seeded by the part's position. A step changes one thread and
//! a field or two, so a successor's fingerprint can be had from its parent's by subtracting
//! the hashes of the parts that changed and adding their new hashes, instead of walking the
//! whole state again.
//!
//! That is exact as long as the canonical numbering of heap objects is the same in both
//! states, and it is when every changed part holds the same references in the same order:
//! the walk then meets the same addresses in the same order. A step that moves a reference
//! (or changes the number of threads) is fingerprinted by the whole walk instead.
//!
//! Under symmetry every thread's part is hashed with one seed, so the sum does not depend on
//! the order of the thread list; the walk numbers the objects the globals reach first, then
//! visits the threads in their canonical order (`symmetry.rs`), which decides the numbering
//! of the objects only threads reach. When a thread holds such an object that order can
//! change with any step, so the state's successors are fingerprinted by the whole walk; when
//! none does, the numbering comes from the globals alone and the incremental path stays
//! exact.

use super::{
    globals_part, globals_values, moved_thread_part, object_fields, object_part, object_values,
    symmetry::Sorter, thread_part, DeadLocals, Encoder, Rename,
};
use crate::runtime::{Addr, Move, Object, State, Thread, Value};
use imbl::ordmap::DiffItem;
use std::rc::Rc;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The hash seed of a part: its kind in the top bits, its position below, mixed (the
/// splitmix64 finalizer). xxh3 folds the seed of a short input into the input linearly, so
/// seeds that differ in a few low bits let parts whose bytes differ in the same bits trade
/// hashes: two objects swapping a field's value summed to the same fingerprint. Mixed seeds
/// differ in about half their bits.
#[inline(always)]
fn seed(kind: u64, i: usize) -> u64 {
    let mut z = ((kind << 60) ^ i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31) ^ super::salt()
}
const GLOBALS: u64 = 1;
const THREAD: u64 = 2;
const OBJECT: u64 = 3;

/// The canonical number of each address reachable in a state (0: not reachable).
#[derive(Debug, Default)]
struct Numbering {
    /// By address, for addresses below [`super::DENSE`].
    dense: Vec<u32>,
    sparse: ahash::AHashMap<Addr, u32>,
    /// The numbered addresses in the order of their numbers.
    order: Box<[Addr]>,
}

impl Numbering {
    /// The numbering that gives the addresses of `order` the numbers 1, 2, ... in turn.
    fn from_order(order: &[Addr]) -> Numbering {
        let mut numbering = Numbering {
            order: order.into(),
            ..Default::default()
        };
        let max = order.iter().copied().max().unwrap_or(0) as usize;
        if max < super::DENSE {
            numbering.dense = vec![0; max + 1];
        }
        for (i, &a) in order.iter().enumerate() {
            match numbering.dense.get_mut(a as usize) {
                Some(n) => *n = i as u32 + 1,
                None => {
                    numbering.sparse.insert(a, i as u32 + 1);
                }
            }
        }
        numbering
    }

    #[inline]
    fn get(&self, a: Addr) -> Option<u32> {
        let n = match self.dense.get(a as usize) {
            Some(&n) => n,
            None => self.sparse.get(&a).copied().unwrap_or(0),
        };
        (n != 0).then_some(n)
    }
}

/// A state's fingerprint with the numbering its successors' fingerprints start from.
#[derive(Clone, Debug)]
pub struct Canon {
    pub fp: u64,
    numbering: Rc<Numbering>,
    /// A thread and the hash of its part, if known: a state reached by a move knows the
    /// moved thread's, and the next move of the same thread (the common case inside an
    /// atomic region) need not hash its old part again.
    moved: Option<(u32, u64)>,
    /// The numbering does not depend on the order of the threads (always, without symmetry;
    /// under it, when no thread holds an object the globals do not reach): successors may be
    /// fingerprinted from it.
    order_free: bool,
    /// A deep state's names (see [`super::deep`]; then `numbering` is empty), and whether
    /// its reachable objects hold no references.
    names: Option<super::deep::Names>,
    flat: bool,
}

impl Canon {
    /// A deep state's canon (see [`super::deep`]).
    fn deep(fp: u64, names: super::deep::Names, flat: bool) -> Canon {
        Canon {
            fp,
            numbering: Default::default(),
            moved: None,
            // the deep scheme is taken only where the threads' order is not at stake
            order_free: true,
            names: Some(names),
            flat,
        }
    }

    /// Whether this is a deep state's canon (see `canon::deep`): its successors' canons
    /// come from [`SegmentHasher::successor_canon`], not [`Canon::successor`].
    pub fn is_deep(&self) -> bool {
        self.names.is_some()
    }

    /// What a process that receives this canon's state needs to rebuild the canon without
    /// walking the state (the distributed search sends it with the state; the fingerprint
    /// travels apart): whether the numbering is free of the threads' order, and the heap
    /// addresses in the order of their canonical numbers. `None` for a deep state's canon,
    /// whose names do not travel (the receiver walks that state).
    pub fn numbering(&self) -> Option<(bool, &[Addr])> {
        self.names
            .is_none()
            .then_some((self.order_free, &self.numbering.order[..]))
    }

    /// The canon [`Canon::numbering`] describes, for the state whose fingerprint is `fp`:
    /// the same fingerprint and numbering as the sender's canon, so the state's successors
    /// are fingerprinted from it as the sender would have.
    pub fn from_numbering(fp: u64, order_free: bool, order: &[Addr]) -> Canon {
        Canon {
            fp,
            numbering: Rc::new(Numbering::from_order(order)),
            moved: None,
            order_free,
            names: None,
            flat: false,
        }
    }

    /// The canon of a successor whose fingerprint [`SegmentHasher::successor`] computed: it
    /// shares this state's numbering.
    pub fn successor(&self, fp: u64) -> Canon {
        Canon {
            fp,
            numbering: self.numbering.clone(),
            moved: None,
            order_free: self.order_free,
            names: self.names.clone(),
            flat: self.flat,
        }
    }

    /// The canon of a successor reached by a move (see [`SegmentHasher::successor_move`]).
    pub fn moved(&self, m: MoveFp) -> Canon {
        Canon {
            fp: m.fp,
            numbering: self.numbering.clone(),
            // a deep move's thread hash is not one part
            moved: self.names.is_none().then_some((m.tid, m.thread)),
            order_free: self.order_free,
            names: self.names.clone(),
            flat: self.flat,
        }
    }
}

/// A move's fingerprint, with the hash of the moved thread's new part.
#[derive(Clone, Copy, Debug)]
pub struct MoveFp {
    pub fp: u64,
    tid: u32,
    thread: u64,
}

/// Numbers addresses from a fixed numbering; an address it lacks is noted.
struct Fixed<'a> {
    numbering: &'a Numbering,
    missing: bool,
}

impl Rename for Fixed<'_> {
    #[inline]
    fn number(&mut self, a: Addr) -> u32 {
        self.numbering.get(a).unwrap_or_else(|| {
            self.missing = true;
            0
        })
    }
    fn numbered(&self, _: usize) -> Option<Addr> {
        None
    }
}

/// Computes segmented fingerprints, reusing its buffers from state to state.
#[derive(Default)]
pub struct SegmentHasher {
    enc: Encoder,
    /// Locals written as `false` in top frames (none by default).
    dead: Rc<DeadLocals>,
    /// Threads are interchangeable (see [`super::symmetric_threads`]): every thread's part is
    /// hashed with one seed, so the sum of their hashes, and the fingerprint, does not depend
    /// on their order.
    symmetric: bool,
    /// The threads' canonical order under symmetry.
    sorter: Sorter,
    /// Whether the last walk's numbering did not depend on the order of the threads.
    order_free: bool,
    part: Vec<u8>,
    refs_a: Vec<Addr>,
    refs_b: Vec<Addr>,
    /// The stack depth from which states are fingerprinted by the deep scheme
    /// ([`super::deep`]); 0: never (the default). Under symmetry only states of one thread
    /// are (the deep scheme names positions by thread, so it does not sum thread parts alike).
    deep_from: u32,
}

impl SegmentHasher {
    /// A hasher that writes `dead`'s locals as `false` (see [`DeadLocals`]).
    pub fn with_dead(dead: Rc<DeadLocals>) -> SegmentHasher {
        SegmentHasher {
            dead,
            ..Default::default()
        }
    }

    /// This hasher with every thread's part seeded alike when `on` (symmetry reduction: states
    /// whose thread lists are permutations of each other get one fingerprint). Only for
    /// programs where [`super::symmetric_threads`] holds.
    pub fn symmetric(mut self, on: bool) -> SegmentHasher {
        self.symmetric = on;
        self
    }

    /// This hasher with states whose stack is at least `depth` frames deep fingerprinted by
    /// the deep scheme (`canon::deep`; 0: never). Under symmetry, states of one thread only
    /// (there is no other order of their threads).
    pub fn deep_from(mut self, depth: u32) -> SegmentHasher {
        self.deep_from = depth;
        self
    }

    /// Whether `s` is fingerprinted by the deep scheme (if its walk allows): a function of the
    /// state, so equal states take the same scheme.
    #[inline]
    fn deep(&self, s: &State) -> bool {
        self.deep_from != 0
            && (!self.symmetric || s.threads.len() == 1)
            && super::deep::applies(s, self.deep_from)
    }

    /// The seed of the part of the thread at position `i`.
    #[inline(always)]
    fn thread_seed(&self, i: usize) -> u64 {
        seed(THREAD, if self.symmetric { 0 } else { i })
    }

    /// The fingerprint of `s` by the whole walk.
    pub fn full(&mut self, s: &State) -> u64 {
        if self.deep(s) {
            if let Some((fp, _, _)) =
                super::deep::walk(s, self.deep_from, &self.dead, &mut self.part)
            {
                return fp;
            }
        }
        let fp = self.walk(s);
        self.enc.reset();
        fp
    }

    /// The fingerprint of `s` by the whole walk, with the numbering for its successors.
    pub fn canon(&mut self, s: &State) -> Canon {
        if self.deep(s) {
            if let Some((fp, names, flat)) =
                super::deep::walk(s, self.deep_from, &self.dead, &mut self.part)
            {
                return Canon::deep(fp, names, flat);
            }
        }
        let fp = self.walk(s);
        let numbering = Numbering::from_order(&self.enc.order);
        self.enc.reset();
        Canon {
            fp,
            numbering: Rc::new(numbering),
            moved: None,
            order_free: self.order_free,
            names: None,
            flat: false,
        }
    }

    fn walk(&mut self, s: &State) -> u64 {
        let ren = &mut self.enc;
        let part = &mut self.part;
        part.clear();
        globals_part(s, part, ren);
        let mut fp = xxh3_64_with_seed(part, seed(GLOBALS, 0));
        self.order_free = true;
        let mut i = 0;
        if !self.symmetric {
            for (i, t) in s.threads.iter().enumerate() {
                part.clear();
                thread_part(t, part, ren, &self.dead);
                fp = fp.wrapping_add(xxh3_64_with_seed(part, seed(THREAD, i)));
            }
        } else {
            // the objects the globals reach come first (`symmetry.rs`)
            while let Some(a) = ren.numbered(i) {
                i += 1;
                part.clear();
                object_part(s, a, part, ren);
                fp = fp.wrapping_add(xxh3_64_with_seed(part, seed(OBJECT, i)));
            }
            let shared = i;
            let mut threads = 0u64;
            for t in s.threads.iter() {
                part.clear();
                thread_part(t, part, ren, &self.dead);
                threads = threads.wrapping_add(xxh3_64_with_seed(part, seed(THREAD, 0)));
            }
            if ren.order.len() > shared {
                // a thread holds an object the globals do not reach: the canonical order of
                // the threads numbers it
                self.order_free = false;
                ren.truncate(shared);
                self.sorter.keys(s, &self.dead, &[]);
                self.sorter.sort(s.threads.len());
                threads = 0;
                for &t in &self.sorter.order {
                    part.clear();
                    thread_part(&s.threads[t as usize], part, ren, &self.dead);
                    threads = threads.wrapping_add(xxh3_64_with_seed(part, seed(THREAD, 0)));
                }
            }
            fp = fp.wrapping_add(threads);
        }
        while let Some(a) = ren.numbered(i) {
            i += 1;
            part.clear();
            object_part(s, a, part, ren);
            fp = fp.wrapping_add(xxh3_64_with_seed(part, seed(OBJECT, i)));
        }
        fp
    }

    /// The fingerprint of `child`, a successor of `parent` (whose canon is `canon`), from the
    /// parts that differ; `None` if the step changed the number of threads or where some
    /// reference is (then the numbering may differ: use [`SegmentHasher::full`]). `touched`
    /// lists every heap address whose object may differ, if the caller knows them (the
    /// step's [`crate::runtime::Touched`]); otherwise the heaps are compared.
    pub fn successor(
        &mut self,
        parent: &State,
        canon: &Canon,
        child: &State,
        touched: Option<&[Addr]>,
    ) -> Option<u64> {
        if let Some(names) = &canon.names {
            return self
                .deep_successor(parent, canon, names, child, touched)
                .map(|(fp, _, _)| fp);
        }
        // a deep child is fingerprinted by the other scheme
        if parent.threads.len() != child.threads.len() || !canon.order_free || self.deep(child) {
            return None;
        }
        let numbering = &*canon.numbering;
        let mut fp = canon.fp;
        if !Rc::ptr_eq(&parent.globals, &child.globals) {
            refs(&parent.globals, &mut self.refs_a);
            refs(&child.globals, &mut self.refs_b);
            if self.refs_a != self.refs_b {
                return None;
            }
            let s = seed(GLOBALS, 0);
            let old = self.hash(numbering, s, |p, r| globals_part(parent, p, r))?;
            let new = self.hash(numbering, s, |p, r| globals_part(child, p, r))?;
            fp = fp.wrapping_sub(old).wrapping_add(new);
        }
        if !Rc::ptr_eq(&parent.threads, &child.threads) {
            for (i, (a, b)) in parent.threads.iter().zip(child.threads.iter()).enumerate() {
                if Rc::ptr_eq(a, b) || same_thread(a, b) {
                    continue;
                }
                if !same_refs(a, b, &mut self.refs_a, &mut self.refs_b) {
                    return None;
                }
                let s = self.thread_seed(i);
                let dead = self.dead.clone();
                let old = self.hash(numbering, s, |p, r| thread_part(a, p, r, &dead))?;
                let new = self.hash(numbering, s, |p, r| thread_part(b, p, r, &dead))?;
                fp = fp.wrapping_sub(old).wrapping_add(new);
            }
        }
        if parent.heap.ptr_eq(&child.heap) {
            return Some(fp);
        }
        if let Some(touched) = touched {
            for &a in touched {
                let (o, n) = (parent.heap.get(&a), child.heap.get(&a));
                let k = match (o, n) {
                    (Some(o), Some(n)) if Rc::ptr_eq(o, n) => continue,
                    (None, None) => continue,
                    _ => match numbering.get(a) {
                        Some(k) => k,
                        None => continue,
                    },
                };
                // a numbered object appeared or vanished: the walk changes shape
                let (Some(o), Some(n)) = (o, n) else {
                    return None;
                };
                fp = self.rehash_object(numbering, k, o, n, fp)?;
            }
        } else {
            for d in parent.heap.diff(&child.heap) {
                match d {
                    // a new or dropped object matters only if the walk reaches its address
                    DiffItem::Add(&a, _) | DiffItem::Remove(&a, _) => {
                        if numbering.get(a).is_some() {
                            return None;
                        }
                    }
                    DiffItem::Update {
                        old: (&a, o),
                        new: (_, n),
                    } => {
                        let Some(k) = numbering.get(a) else {
                            continue;
                        };
                        fp = self.rehash_object(numbering, k, o, n, fp)?;
                    }
                }
            }
        }
        Some(fp)
    }

    /// The fingerprint of the successor of `parent` (whose canon is `canon`) that `mv`
    /// stands for, from the parts the move changes; `None` if it moves a reference (then
    /// build the state and use [`SegmentHasher::full`]).
    pub fn successor_move(&mut self, parent: &State, canon: &Canon, mv: &Move) -> Option<MoveFp> {
        if let Some(names) = &canon.names {
            if self.symmetric && parent.threads.len() != 1 {
                return None;
            }
            let dead = self.dead.clone();
            let fp =
                super::deep::successor_move(parent, canon.fp, names, mv, &dead, &mut self.part)?;
            return Some(MoveFp {
                fp,
                tid: mv.tid,
                thread: 0,
            });
        }
        if !canon.order_free {
            return None;
        }
        let numbering = &*canon.numbering;
        let mut fp = canon.fp;
        if let Some(g) = &mv.globals {
            if !same_ref_slots(&parent.globals, g) {
                return None;
            }
            let n = parent.threads.len();
            let s = seed(GLOBALS, 0);
            let old = self.hash(numbering, s, |p, r| {
                globals_values(&parent.globals, n, p, r)
            })?;
            let new = self.hash(numbering, s, |p, r| globals_values(g, n, p, r))?;
            fp = fp.wrapping_sub(old).wrapping_add(new);
        }
        let tid = mv.tid as usize;
        let t = &parent.threads[tid];
        let top = t.stack.top()?;
        let tl_same = mv
            .thread_locals
            .as_ref()
            .is_none_or(|tl| same_ref_slots(&t.thread_locals, tl));
        if !tl_same || !same_ref_slots(&top.locals, &mv.locals) {
            return None;
        }
        let s = self.thread_seed(tid);
        let old = match canon.moved {
            Some((t, h)) if t == mv.tid => h,
            _ => {
                let dead = self.dead.clone();
                self.hash(numbering, s, |p, r| thread_part(t, p, r, &dead))?
            }
        };
        let dead = self.dead.clone();
        let thread = self.hash(numbering, s, |p, r| moved_thread_part(t, mv, p, r, &dead))?;
        fp = fp.wrapping_sub(old).wrapping_add(thread);
        for (a, o, fields) in mv.written_objects(parent) {
            let Some(k) = numbering.get(a) else {
                // garbage
                continue;
            };
            if !same_ref_slots(&o.fields, &fields) {
                return None;
            }
            let s = seed(OBJECT, k as usize);
            let old = self.hash(numbering, s, |p, r| object_fields(o, p, r))?;
            let new = self.hash(numbering, s, |p, r| object_values(o.class, &fields, p, r))?;
            fp = fp.wrapping_sub(old).wrapping_add(new);
        }
        Some(MoveFp {
            fp,
            tid: mv.tid,
            thread,
        })
    }

    /// The deep scheme's fingerprint, names and flatness of `child`, a successor of the deep
    /// state `parent` (whose canon is `canon`, with `names`); `None` where the scheme does not
    /// follow the step (then walk the child whole).
    fn deep_successor(
        &mut self,
        parent: &State,
        canon: &Canon,
        names: &super::deep::Names,
        child: &State,
        touched: Option<&[Addr]>,
    ) -> Option<(u64, super::deep::Names, bool)> {
        if self.symmetric && child.threads.len() != 1 {
            // a second thread: the child is not deep under symmetry
            return None;
        }
        let dead = self.dead.clone();
        super::deep::successor(
            parent,
            canon.fp,
            names,
            canon.flat,
            child,
            touched,
            (self.deep_from, &dead),
            &mut self.part,
        )
    }

    /// The canon of `child`, a successor of `parent` (whose canon is `canon`), from the parts
    /// that differ as [`SegmentHasher::successor`] finds them (a deep state's names may
    /// change with the step); `None` where that gives `None`.
    pub fn successor_canon(
        &mut self,
        parent: &State,
        canon: &Canon,
        child: &State,
        touched: Option<&[Addr]>,
    ) -> Option<Canon> {
        let Some(names) = &canon.names else {
            return self
                .successor(parent, canon, child, touched)
                .map(|fp| canon.successor(fp));
        };
        let (fp, names, flat) = self.deep_successor(parent, canon, names, child, touched)?;
        Some(Canon::deep(fp, names, flat))
    }

    /// `fp` with object number `k` changed from `o` to `n` (`None` if its references moved).
    fn rehash_object(
        &mut self,
        numbering: &Numbering,
        k: u32,
        o: &Object,
        n: &Object,
        fp: u64,
    ) -> Option<u64> {
        refs(&o.fields, &mut self.refs_a);
        refs(&n.fields, &mut self.refs_b);
        if self.refs_a != self.refs_b {
            return None;
        }
        let s = seed(OBJECT, k as usize);
        let old = self.hash(numbering, s, |p, r| object_fields(o, p, r))?;
        let new = self.hash(numbering, s, |p, r| object_fields(n, p, r))?;
        Some(fp.wrapping_sub(old).wrapping_add(new))
    }

    /// The hash of one part written by `write` with a fixed numbering (`None` if the part
    /// reaches an address the numbering lacks).
    #[inline]
    fn hash(
        &mut self,
        numbering: &Numbering,
        seed: u64,
        write: impl FnOnce(&mut Vec<u8>, &mut Fixed),
    ) -> Option<u64> {
        let mut ren = Fixed {
            numbering,
            missing: false,
        };
        self.part.clear();
        write(&mut self.part, &mut ren);
        (!ren.missing).then(|| xxh3_64_with_seed(&self.part, seed))
    }
}

/// Whether two threads are the same by identity of their parts (so encode equally).
#[inline]
fn same_thread(a: &Thread, b: &Thread) -> bool {
    a.atomic == b.atomic
        && a.atomic_steps == b.atomic_steps
        && Rc::ptr_eq(&a.thread_locals, &b.thread_locals)
        && a.stack.ptr_eq(&b.stack)
}

/// Whether two lists of values hold the same references at the same positions (and so are
/// walked alike).
#[inline]
pub(super) fn same_ref_slots(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|p| match p {
            (Value::Ref(x), Value::Ref(y)) => x == y,
            (Value::Ref(_), _) | (_, Value::Ref(_)) => false,
            _ => true,
        })
}

/// Whether two threads hold the same references in the same order.
#[inline]
fn same_refs(a: &Thread, b: &Thread, ra: &mut Vec<Addr>, rb: &mut Vec<Addr>) -> bool {
    // the common step: only the top frame changed
    if Rc::ptr_eq(&a.thread_locals, &b.thread_locals) && a.stack.same_below(&b.stack) {
        let (Some(fa), Some(fb)) = (a.stack.top(), b.stack.top()) else {
            unreachable!("same_below has both tops");
        };
        if fa.locals.len() == fb.locals.len() {
            return same_ref_slots(&fa.locals, &fb.locals);
        }
    }
    thread_refs(a, ra);
    thread_refs(b, rb);
    ra == rb
}

/// The references among `vals`, in order.
#[inline]
fn refs(vals: &[Value], out: &mut Vec<Addr>) {
    out.clear();
    push_refs(vals, out);
}

#[inline]
fn push_refs(vals: &[Value], out: &mut Vec<Addr>) {
    out.extend(vals.iter().filter_map(|v| match v {
        Value::Ref(a) => Some(*a),
        _ => None,
    }));
}

/// The references a thread holds, in the order the walk meets them.
fn thread_refs(t: &Thread, out: &mut Vec<Addr>) {
    out.clear();
    push_refs(&t.thread_locals, out);
    if let Some(below) = t.stack.below() {
        // a digested deep stack meets its distinct references, in first-met order
        let digest = (below.depth() >= super::DIGESTED_DEPTH)
            .then(|| below.digest(super::frame_digest))
            .flatten();
        match digest {
            Some(d) => out.extend_from_slice(&d.refs),
            None => below.for_each_bottom_up(|f| push_refs(&f.locals, out)),
        }
    }
    if let Some(f) = t.stack.top() {
        push_refs(&f.locals, out);
    }
}

#[cfg(test)]
mod tests;
