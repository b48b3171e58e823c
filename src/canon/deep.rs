//! Segmented fingerprints of deep states (issue 18): a state in which some thread's stack is
//! at least [`super::DIGESTED_DEPTH`] frames deep is fingerprinted by a second scheme whose
//! parts are each frame on its own, not each thread, and whose references are named by
//! *where the walk first meets them* instead of by their rank in the walk.
//!
//! A name is a position: the globals' slot, or (thread, depth, slot), with the thread's
//! head (its thread-local globals) at depth 0 and its frames from 1 at the bottom up, packed
//! so that positions compare in the order the walk visits them. A reference is written as
//! the name of its object's first meeting; each reachable object's part is its fields,
//! seeded by its name. So the fingerprint is the sum of one hash per part — the globals,
//! each thread's head, each frame (the top frame with its dead locals masked, under its own
//! kind), each reachable object — plus a mark that keeps the two schemes apart.
//!
//! Why it is canonical: renaming heap addresses changes no position, so states equal up to
//! renaming get equal parts; and the parts determine the state up to renaming (the first
//! meeting of each object is a position, and every slot holding a reference says which
//! first meeting it shares), up to hash collisions. Garbage is not reached. Which scheme
//! applies is a function of the state (its depth, its reachable heap, and the bounds of the
//! packing), so equal states always use the same one.
//!
//! Why it is incremental: a name does not depend on anything walked before its position, so
//! a push or pop of frames, or a new object kept in the top frame, changes only the frames
//! it touches and the objects first met there — where the rank of a reference (the plain
//! scheme's name) would renumber every later object. A step the rules below do not cover is
//! fingerprinted by the whole walk.

use super::DeadLocals;
#[cfg(doc)]
use super::DIGESTED_DEPTH;
use crate::runtime::{Addr, Frame, Move, Object, Stack, State, Thread, Value};
use smallvec::SmallVec;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Names of the reachable addresses: position of the first meeting, plus one.
pub type Names = imbl::HashMap<Addr, u64>;

const GLOBALS: u64 = 1;
const HEAD: u64 = 2;
const FRAME: u64 = 3;
const TOP: u64 = 4;
const OBJECT: u64 = 5;
/// The mark added to every deep fingerprint (a part no plain fingerprint has).
const MARK: u64 = 6;

const SLOT_BITS: u32 = 18;
const DEPTH_BITS: u32 = 24;
const THREAD_BITS: u32 = 60 - SLOT_BITS - DEPTH_BITS;
/// Names of objects first met through another object's field are hashes in [2^60, 2^61).
const HEAP_NAME: u64 = 1 << 60;

/// The position of `slot` at `depth` of thread `t` (`None` past the packing's bounds).
#[inline]
fn pos(t: usize, depth: u32, slot: usize) -> Option<u64> {
    let t = t as u64 + 1;
    (t < 1 << THREAD_BITS && (depth as u64) < 1 << DEPTH_BITS && (slot as u64) < 1 << SLOT_BITS)
        .then_some((t << (SLOT_BITS + DEPTH_BITS)) | ((depth as u64) << SLOT_BITS) | slot as u64)
}

/// A part's seed: its kind above every position.
#[inline]
fn seed(kind: u64, pos: u64) -> u64 {
    ((kind << 61) | pos) ^ super::salt()
}

#[inline]
fn varint(buf: &mut Vec<u8>, x: u64) {
    super::varint(buf, x)
}

/// Writes one value, naming a reference with `name` (its first meeting's position plus one);
/// `None` when `name` cannot.
#[inline]
fn value(buf: &mut Vec<u8>, v: Value, name: impl FnOnce(Addr) -> Option<u64>) -> Option<()> {
    match v {
        Value::Ref(a) => {
            let n = name(a)?;
            // as the plain encoding writes a reference: 4 + 4·name (names are below 2^61)
            varint(buf, 4 + 4 * n);
        }
        other => super::value(buf, other, &mut NoRefs),
    }
    Some(())
}

/// A renamer for values that are not references.
struct NoRefs;

impl super::Rename for NoRefs {
    fn number(&mut self, _: Addr) -> u32 {
        unreachable!("references are named by position")
    }
    fn numbered(&self, _: usize) -> Option<Addr> {
        None
    }
}

/// How a walk names references: `name(a, pos)` is the name of `a` met at `pos`.
trait Namer {
    fn name(&mut self, a: Addr, pos: u64) -> Option<u64>;
}

/// Names the first meeting of each address (the whole walk).
struct First<'a>(&'a mut Names);

impl Namer for First<'_> {
    #[inline]
    fn name(&mut self, a: Addr, pos: u64) -> Option<u64> {
        Some(*self.0.entry(a).or_insert(pos + 1))
    }
}

/// Looks names up (a part of a state whose names are known).
struct Known<'a>(&'a Names);

impl Namer for Known<'_> {
    #[inline]
    fn name(&mut self, a: Addr, _: u64) -> Option<u64> {
        self.0.get(&a).copied()
    }
}

/// Values at positions `base + i`.
#[inline]
fn values(
    buf: &mut Vec<u8>,
    vals: &[Value],
    at: impl Fn(usize) -> Option<u64>,
    n: &mut impl Namer,
) -> Option<()> {
    for (i, &v) in vals.iter().enumerate() {
        let p = at(i)?;
        value(buf, v, |a| n.name(a, p))?;
    }
    Some(())
}

/// The globals' part (with the number of threads).
fn globals(buf: &mut Vec<u8>, g: &[Value], threads: usize, n: &mut impl Namer) -> Option<u64> {
    buf.clear();
    values(buf, g, |i| (i < 1 << SLOT_BITS).then_some(i as u64), n)?;
    varint(buf, threads as u64);
    Some(xxh3_64_with_seed(buf, seed(GLOBALS, 0)))
}

/// A thread's head: atomic flag and steps, thread-local globals, depth.
#[allow(clippy::too_many_arguments)]
fn head(
    buf: &mut Vec<u8>,
    t: usize,
    atomic: bool,
    steps: u32,
    tl: &[Value],
    depth: u32,
    n: &mut impl Namer,
) -> Option<u64> {
    buf.clear();
    buf.push(atomic as u8);
    if steps != 0 {
        varint(buf, steps as u64);
    }
    values(buf, tl, |i| pos(t, 0, i), n)?;
    varint(buf, depth as u64);
    Some(xxh3_64_with_seed(buf, seed(HEAD, pos(t, 0, 0)?)))
}

/// A frame at `depth` of thread `t`; the top one with `dead`'s locals written as `false`
/// (references excepted, as in the plain walk).
#[allow(clippy::too_many_arguments)]
fn frame(
    buf: &mut Vec<u8>,
    t: usize,
    depth: u32,
    proc: u32,
    pc: u32,
    locals: &[Value],
    top: Option<&DeadLocals>,
    n: &mut impl Namer,
) -> Option<u64> {
    buf.clear();
    varint(buf, proc as u64);
    varint(buf, pc as u64);
    let dead = top.map_or(&[][..], |d| d.at(proc, pc));
    for (i, v) in super::masked(locals, dead).enumerate() {
        let p = pos(t, depth, i)?;
        value(buf, v, |a| n.name(a, p))?;
    }
    let kind = if top.is_some() { TOP } else { FRAME };
    Some(xxh3_64_with_seed(buf, seed(kind, pos(t, depth, 0)?)))
}

/// An object's part, seeded by its name (`None`: it holds a reference, the heap is not
/// flat); a dangling reference's object is the mark alone.
fn object(buf: &mut Vec<u8>, o: Option<&Object>, name: u64, names: &Names) -> Option<u64> {
    buf.clear();
    match o {
        Some(o) => {
            varint(buf, o.class as u64 + 1);
            varint(buf, o.fields.len() as u64);
            for &v in o.fields.iter() {
                value(buf, v, |a| names.get(&a).copied())?;
            }
        }
        None => buf.push(0),
    }
    Some(xxh3_64_with_seed(buf, seed(OBJECT, name)))
}

/// Whether an object holds a reference.
#[inline]
fn holds_refs(o: Option<&Object>) -> bool {
    o.is_some_and(|o| o.fields.iter().any(|v| matches!(v, Value::Ref(_))))
}

/// The name of the object first met at field `field` of the object named `parent`.
#[inline]
fn heap_name(parent: u64, field: usize) -> u64 {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&parent.to_le_bytes());
    b[8..].copy_from_slice(&(field as u64).to_le_bytes());
    HEAP_NAME | (xxhash_rust::xxh3::xxh3_64(&b) & (HEAP_NAME - 1))
}

/// The deepest stack of `s`.
fn max_depth(s: &State) -> u32 {
    s.threads.iter().map(|t| t.stack.depth()).max().unwrap_or(0)
}

/// The deep fingerprint of `s` by the whole walk, with its names; `None` when the scheme
/// does not apply (see [`applies`]; or a slot past the packing), with whether the reachable
/// objects hold no references (flat). Objects first met through another object's field are
/// named by a hash of that object's name and the field, met in breadth-first order from the
/// objects the roots meet, taken in the order of their names.
pub fn walk(
    s: &State,
    from: u32,
    dead: &DeadLocals,
    buf: &mut Vec<u8>,
) -> Option<(u64, Names, bool)> {
    if !applies(s, from) {
        return None;
    }
    let mut names = Names::new();
    let mut n = First(&mut names);
    let mut fp = xxh3_64_with_seed(&[], seed(MARK, 0));
    fp = fp.wrapping_add(globals(buf, &s.globals, s.threads.len(), &mut n)?);
    for (t, th) in s.threads.iter().enumerate() {
        fp = fp.wrapping_add(thread(buf, t, th, dead, &mut n)?);
    }
    let mut queue: Vec<(u64, Addr)> = names.iter().map(|(&a, &n)| (n, a)).collect();
    queue.sort_unstable();
    let mut flat = true;
    let mut i = 0;
    while let Some(&(name, a)) = queue.get(i) {
        i += 1;
        let Some(o) = s.heap.get(&a) else { continue };
        for (f, v) in o.fields.iter().enumerate() {
            if let Value::Ref(r) = *v {
                flat = false;
                if !names.contains_key(&r) {
                    let n = heap_name(name, f);
                    names.insert(r, n);
                    queue.push((n, r));
                }
            }
        }
    }
    for &(name, a) in &queue {
        fp = fp.wrapping_add(object(buf, s.heap.get(&a).map(|o| &**o), name, &names)?);
    }
    Some((fp, names, flat))
}

/// Whether the deep scheme fingerprints `s`: some stack is at least `from` frames deep (the
/// search's threshold, [`DIGESTED_DEPTH`] unless a test lowers it), and the threads and
/// depths fit the packing (a slot past it is found by the walk).
#[inline]
pub fn applies(s: &State, from: u32) -> bool {
    let d = max_depth(s);
    d >= from.max(1)
        && (d as u64) < 1 << DEPTH_BITS
        && (s.threads.len() as u64) < (1 << THREAD_BITS) - 1
}

/// The sum of a whole thread's parts.
fn thread(
    buf: &mut Vec<u8>,
    t: usize,
    th: &Thread,
    dead: &DeadLocals,
    n: &mut impl Namer,
) -> Option<u64> {
    let depth = th.stack.depth();
    let mut sum = head(
        buf,
        t,
        th.atomic,
        th.atomic_steps,
        &th.thread_locals,
        depth,
        n,
    )?;
    let mut d = 0;
    let mut ok = true;
    th.stack.for_each_bottom_up(|f| {
        d += 1;
        if !ok {
            return;
        }
        let top = (d == depth).then_some(dead);
        match frame(buf, t, d, f.proc, f.pc, &f.locals, top, n) {
            Some(h) => sum = sum.wrapping_add(h),
            None => ok = false,
        }
    });
    ok.then_some(sum)
}

/// The frames of `s` above depth `k`, bottom up (with their depths).
fn frames_above(s: &Stack, k: u32) -> SmallVec<[(u32, &Frame); 4]> {
    let mut v: SmallVec<[(u32, &Frame); 4]> = s
        .iter()
        .zip((1..=s.depth()).rev())
        .take((s.depth() - k) as usize)
        .map(|(f, d)| (d, f))
        .collect();
    v.reverse();
    v
}

/// The depth below which two stacks share their frames (the frames above it, on either side,
/// are what a step changed: walking down to it costs what the step pushed and popped, so a
/// chain of steps that returns through many frames at once still costs each frame once).
fn shared_depth(a: &Stack, b: &Stack) -> u32 {
    let (mut x, mut y) = (a.pop(), b.pop());
    while !x.ptr_eq(&y) {
        if x.depth() >= y.depth() {
            x = x.pop();
        } else {
            y = y.pop();
        }
    }
    x.depth()
}

/// The deep fingerprint and names of `child`, a successor of `parent` (fingerprint `fp`,
/// names `names`), from the parts that differ; `None` when the rules do not cover the step
/// (then walk the child whole). Covered: one thread changes (its head, and its frames above
/// the depth where the two stacks share theirs), the globals change without moving a
/// reference, objects change without gaining one; references in the changed frames keep
/// the names they had (first met further down, or at the same position), or are new
/// addresses first met there; the objects first met in frames that went away become
/// garbage (only for the last thread: a later one would meet them first now).
#[allow(clippy::too_many_arguments)]
pub fn successor(
    parent: &State,
    fp: u64,
    names: &Names,
    flat: bool,
    child: &State,
    touched: Option<&[Addr]>,
    (from, dead): (u32, &DeadLocals),
    buf: &mut Vec<u8>,
) -> Option<(u64, Names, bool)> {
    if parent.threads.len() != child.threads.len() || !applies(child, from) {
        return None;
    }
    let mut fp = fp;
    let mut new_names: Option<Names> = None;
    // addresses whose object is hashed already (new ones) or dropped
    let mut done: SmallVec<[Addr; 4]> = SmallVec::new();
    if !std::rc::Rc::ptr_eq(&parent.globals, &child.globals) {
        if !super::segmented::same_ref_slots(&parent.globals, &child.globals) {
            return None;
        }
        let n = parent.threads.len();
        fp = fp
            .wrapping_sub(globals(buf, &parent.globals, n, &mut Known(names))?)
            .wrapping_add(globals(buf, &child.globals, n, &mut Known(names))?);
    }
    if !std::rc::Rc::ptr_eq(&parent.threads, &child.threads) {
        let mut changed = parent
            .threads
            .iter()
            .zip(child.threads.iter())
            .enumerate()
            .filter(|(_, (a, b))| !std::rc::Rc::ptr_eq(a, b));
        if let Some((t, (a, b))) = changed.next() {
            if changed.next().is_some() {
                return None;
            }
            let last = t + 1 == child.threads.len();
            let drop_ok = last && flat;
            let (f, nn) = thread_step(
                t, a, b, fp, names, parent, child, drop_ok, dead, buf, &mut done,
            )?;
            fp = f;
            new_names = nn;
        }
    }
    let names_now = new_names.as_ref().unwrap_or(names);
    let mut flat = flat;
    if !parent.heap.ptr_eq(&child.heap) {
        let rehash = |a: Addr, fp: u64, buf: &mut Vec<u8>| -> Option<u64> {
            if done.contains(&a) {
                return Some(fp);
            }
            let Some(&name) = names_now.get(&a) else {
                return Some(fp);
            };
            let (o, n) = (parent.heap.get(&a), child.heap.get(&a));
            if let (Some(o), Some(n)) = (o, n) {
                if std::rc::Rc::ptr_eq(o, n) {
                    return Some(fp);
                }
            }
            let (o, n) = (o.map(|o| &**o), n.map(|o| &**o));
            // the object's references stay where they were (names after them would move)
            if holds_refs(o) || holds_refs(n) {
                match (o, n) {
                    (Some(o), Some(n))
                        if super::segmented::same_ref_slots(&o.fields, &n.fields) => {}
                    _ => return None,
                }
            }
            let old = object(buf, o, name, names_now)?;
            let new = object(buf, n, name, names_now)?;
            Some(fp.wrapping_sub(old).wrapping_add(new))
        };
        match touched {
            Some(touched) => {
                for &a in touched {
                    fp = rehash(a, fp, buf)?;
                }
            }
            None => {
                for d in parent.heap.diff(&child.heap) {
                    let a = match d {
                        imbl::ordmap::DiffItem::Add(&a, _)
                        | imbl::ordmap::DiffItem::Remove(&a, _) => a,
                        imbl::ordmap::DiffItem::Update { old: (&a, _), .. } => a,
                    };
                    fp = rehash(a, fp, buf)?;
                }
            }
        }
    }
    for &a in &done {
        flat &= !holds_refs(child.heap.get(&a).map(|o| &**o));
    }
    Some((fp, new_names.unwrap_or_else(|| names.clone()), flat))
}

/// [`successor`]'s part for the one thread `t` that changed from `a` to `b`: the new
/// fingerprint, and the new names if they changed.
#[allow(clippy::too_many_arguments)]
fn thread_step(
    t: usize,
    a: &Thread,
    b: &Thread,
    fp: u64,
    names: &Names,
    parent: &State,
    child: &State,
    drop_ok: bool,
    dead: &DeadLocals,
    buf: &mut Vec<u8>,
    done: &mut SmallVec<[Addr; 4]>,
) -> Option<(u64, Option<Names>)> {
    if !std::rc::Rc::ptr_eq(&a.thread_locals, &b.thread_locals)
        && !super::segmented::same_ref_slots(&a.thread_locals, &b.thread_locals)
    {
        return None;
    }
    let (da, db) = (a.stack.depth(), b.stack.depth());
    if da == 0 || db == 0 {
        return None;
    }
    let k = shared_depth(&a.stack, &b.stack);
    // the first position of the changed frames: names below it stay
    let from = pos(t, k + 1, 0)?;
    let mut fp = fp
        .wrapping_sub(head(
            buf,
            t,
            a.atomic,
            a.atomic_steps,
            &a.thread_locals,
            da,
            &mut Known(names),
        )?)
        .wrapping_add(head(
            buf,
            t,
            b.atomic,
            b.atomic_steps,
            &b.thread_locals,
            db,
            &mut Known(names),
        )?);
    // the frames that went away, and the addresses first met in them
    let mut lost: SmallVec<[(Addr, u64); 4]> = SmallVec::new();
    for (d, f) in frames_above(&a.stack, k) {
        let top = (d == da).then_some(dead);
        fp = fp.wrapping_sub(frame(
            buf,
            t,
            d,
            f.proc,
            f.pc,
            &f.locals,
            top,
            &mut Known(names),
        )?);
        for (i, v) in f.locals.iter().enumerate() {
            if let Value::Ref(r) = *v {
                let p = pos(t, d, i)?;
                if names.get(&r) == Some(&(p + 1)) {
                    lost.push((r, p + 1));
                }
            }
        }
    }
    // the new frames: each reference keeps its name or is a new address first met here
    let mut names_out: Option<Names> = None;
    let mut met: SmallVec<[(Addr, u64); 4]> = SmallVec::new();
    for (d, f) in frames_above(&b.stack, k) {
        for (i, v) in f.locals.iter().enumerate() {
            let Value::Ref(r) = *v else { continue };
            let p = pos(t, d, i)?;
            if met.iter().any(|&(x, _)| x == r) {
                continue;
            }
            match names.get(&r) {
                // first met further down, in another thread before, or in the globals
                Some(&n) if n - 1 < from => {}
                // met first here as before
                Some(&n) if n == p + 1 => met.push((r, n)),
                // its first meeting moved: names after it may change
                Some(_) => return None,
                None => {
                    let o = child.heap.get(&r).map(|o| &**o);
                    if holds_refs(o) {
                        // it may reach objects not named yet
                        return None;
                    }
                    met.push((r, p + 1));
                    fp = fp.wrapping_add(object(buf, o, p + 1, names)?);
                    done.push(r);
                    names_out
                        .get_or_insert_with(|| names.clone())
                        .insert(r, p + 1);
                }
            }
        }
    }
    // first met in the frames that went away and met nowhere now: garbage (a later thread
    // would otherwise meet it first, renaming it)
    for &(r, name) in &lost {
        if met.iter().any(|&(x, _)| x == r) {
            continue;
        }
        if !drop_ok {
            return None;
        }
        // the parent's object leaves the walk (whatever the step wrote into it)
        let o = parent.heap.get(&r).map(|o| &**o);
        fp = fp.wrapping_sub(object(buf, o, name, names)?);
        done.push(r);
        names_out.get_or_insert_with(|| names.clone()).remove(&r);
    }
    // the new frames' hashes, named by the child's names
    let now = names_out.as_ref().unwrap_or(names);
    for (d, f) in frames_above(&b.stack, k) {
        let top = (d == db).then_some(dead);
        fp = fp.wrapping_add(frame(
            buf,
            t,
            d,
            f.proc,
            f.pc,
            &f.locals,
            top,
            &mut Known(now),
        )?);
    }
    Some((fp, names_out))
}

/// The deep fingerprint of the successor of `parent` that the move `mv` stands for (the
/// names stay: a move keeps every reference where it was); `None` when it moves a
/// reference or writes one into an object.
pub fn successor_move(
    parent: &State,
    fp: u64,
    names: &Names,
    mv: &Move,
    dead: &DeadLocals,
    buf: &mut Vec<u8>,
) -> Option<u64> {
    use super::segmented::same_ref_slots;
    let mut fp = fp;
    let n = parent.threads.len();
    if let Some(g) = &mv.globals {
        if !same_ref_slots(&parent.globals, g) {
            return None;
        }
        fp = fp
            .wrapping_sub(globals(buf, &parent.globals, n, &mut Known(names))?)
            .wrapping_add(globals(buf, g, n, &mut Known(names))?);
    }
    let t = mv.tid as usize;
    let th = &parent.threads[t];
    let top = th.stack.top()?;
    let tl = mv.thread_locals.as_ref().unwrap_or(&th.thread_locals);
    if !same_ref_slots(&th.thread_locals, tl) || !same_ref_slots(&top.locals, &mv.locals) {
        return None;
    }
    let depth = th.stack.depth();
    fp = fp
        .wrapping_sub(head(
            buf,
            t,
            th.atomic,
            th.atomic_steps,
            &th.thread_locals,
            depth,
            &mut Known(names),
        )?)
        .wrapping_add(head(
            buf,
            t,
            mv.atomic,
            mv.atomic_steps,
            tl,
            depth,
            &mut Known(names),
        )?)
        .wrapping_sub(frame(
            buf,
            t,
            depth,
            top.proc,
            top.pc,
            &top.locals,
            Some(dead),
            &mut Known(names),
        )?)
        .wrapping_add(frame(
            buf,
            t,
            depth,
            top.proc,
            mv.pc,
            &mv.locals,
            Some(dead),
            &mut Known(names),
        )?);
    for (a, o, fields) in mv.written_objects(parent) {
        let Some(&name) = names.get(&a) else {
            continue;
        };
        if !same_ref_slots(&o.fields, &fields) {
            return None;
        }
        let new = Object {
            class: o.class,
            fields: fields.to_vec().into(),
        };
        fp = fp
            .wrapping_sub(object(buf, Some(o), name, names)?)
            .wrapping_add(object(buf, Some(&new), name, names)?);
    }
    Some(fp)
}
