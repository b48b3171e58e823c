use super::*;
use crate::runtime::{Frame, Stack, Thread};
use std::rc::Rc;

fn state(g: bool, l: bool) -> State {
    State {
        globals: vec![Value::Bool(g)].into(),
        threads: Rc::from(vec![Rc::new(Thread {
            stack: Stack::new(Frame {
                proc: 0,
                pc: 1,
                locals: vec![Value::Bool(l)].into(),
            }),
            thread_locals: Vec::new().into(),
            atomic: false,
            atomic_steps: 0,
        })]),
        heap: Default::default(),
    }
}

#[test]
fn equal_states_encode_equally_and_different_ones_differently() {
    let enc = |s: &State| {
        let mut b = Vec::new();
        encode(s, &mut b);
        b
    };
    assert_eq!(enc(&state(true, false)), enc(&state(true, false)));
    assert_ne!(enc(&state(true, false)), enc(&state(false, true)));
    assert_ne!(enc(&state(true, false)), enc(&state(true, true)));
}

fn with_heap(objs: &[(Addr, u32, Value)], root: Addr) -> State {
    let mut s = state(true, false);
    s.globals = vec![Value::Ref(root)].into();
    for &(a, class, v) in objs {
        s.heap.insert(
            a,
            std::rc::Rc::new(crate::runtime::Object {
                class,
                fields: vec![v].into(),
            }),
        );
    }
    s
}

#[test]
fn heap_addresses_are_renamed_and_garbage_is_dropped() {
    let enc = |s: &State| {
        let mut b = Vec::new();
        encode(s, &mut b);
        b
    };
    // the same list at different addresses, one with garbage
    let a = with_heap(&[(1, 0, Value::Ref(2)), (2, 0, Value::Null)], 1);
    let b = with_heap(
        &[
            (7, 0, Value::Ref(3)),
            (3, 0, Value::Null),
            (9, 1, Value::Int(5)),
        ],
        7,
    );
    assert_eq!(enc(&a), enc(&b));
    // a different shape differs
    let c = with_heap(&[(1, 0, Value::Ref(1))], 1);
    assert_ne!(enc(&a), enc(&c));
}

/// A thread 50 frames deep whose frames hold `refs(depth)`, over a heap of one-field
/// objects at the given addresses.
fn deep(refs: impl Fn(u32) -> [Addr; 2], objs: &[(Addr, i64)]) -> State {
    let mut stack = Stack::default();
    for d in 0..50 {
        let [a, b] = refs(d);
        stack = stack.push(Frame {
            proc: 0,
            pc: d,
            locals: vec![Value::Ref(a), Value::Ref(b)].into(),
        });
    }
    let mut s = state(true, false);
    s.threads = Rc::from(vec![Rc::new(Thread {
        stack,
        thread_locals: Vec::new().into(),
        atomic: false,
        atomic_steps: 0,
    })]);
    for &(a, v) in objs {
        s.heap.insert(
            a,
            Rc::new(crate::runtime::Object {
                class: 0,
                fields: vec![Value::Int(v)].into(),
            }),
        );
    }
    s
}

#[test]
fn deep_stacks_with_references_are_renamed_like_shallow_ones() {
    let enc = |s: &State| {
        let mut b = Vec::new();
        encode(s, &mut b);
        b
    };
    let objs = |x: Addr, y: Addr| [(x, 1), (y, 2)];
    // the same stack and heap at other addresses: equal
    let a = deep(|_| [1, 2], &objs(1, 2));
    assert_eq!(enc(&a), enc(&deep(|_| [8, 5], &objs(8, 5))));
    // the two references swapped in one frame low down (digested): different
    let swapped = deep(|d| if d == 3 { [2, 1] } else { [1, 2] }, &objs(1, 2));
    assert_ne!(enc(&a), enc(&swapped));
    // the same references, but the objects' contents swapped: different
    assert_ne!(enc(&a), enc(&deep(|_| [1, 2], &objs(2, 1))));
    // more distinct references than a digest keeps are written out, and still renamed
    let many = |base: Addr| {
        let objs: Vec<(Addr, i64)> = (0..100).map(|i| (base + i, i as i64)).collect();
        deep(|d| [base + 2 * d, base + 2 * d + 1], &objs)
    };
    assert_eq!(enc(&many(1)), enc(&many(1000)));
}

#[test]
fn objects_of_one_class_with_different_lengths_differ() {
    let enc = |s: &State| {
        let mut b = Vec::new();
        encode(s, &mut b);
        b
    };
    let mut a = with_heap(&[(1, 0, Value::Bool(false))], 1);
    let mut b = a.clone();
    let two = crate::runtime::Object {
        class: 0,
        fields: vec![Value::Bool(false), Value::Bool(false)].into(),
    };
    b.heap.insert(1, Rc::new(two));
    assert_ne!(enc(&a), enc(&b));
    a.heap.insert(
        1,
        Rc::new(crate::runtime::Object {
            class: 0,
            fields: Vec::new().into(),
        }),
    );
    assert_ne!(enc(&a), enc(&b));
}

#[test]
fn values_encode_distinctly() {
    let vals = [
        Value::Bool(false),
        Value::Bool(true),
        Value::Null,
        Value::Int(0),
        Value::Int(1),
        Value::Int(-1),
        Value::Int(63),
        Value::Int(64),
        Value::Int(-65),
        Value::Int(1 << 59),
        Value::Int(1 << 60),
        Value::Int(-(1 << 60)),
        Value::Int(-(1 << 60) - 1),
        Value::Int(i64::MAX),
        Value::Int(i64::MIN),
        Value::Ref(1),
    ];
    let mut seen = std::collections::HashSet::new();
    for v in vals {
        let mut s = state(true, false);
        s.globals = vec![v, Value::Bool(true)].into();
        if let Value::Ref(a) = v {
            s.heap.insert(
                a,
                Rc::new(crate::runtime::Object {
                    class: 0,
                    fields: Vec::new().into(),
                }),
            );
        }
        let mut b = Vec::new();
        encode(&s, &mut b);
        assert!(seen.insert(b), "{v:?}");
    }
}

#[test]
fn the_reusable_encoder_writes_the_same_bytes() {
    let states = [
        state(true, false),
        with_heap(&[(1, 0, Value::Ref(2)), (2, 0, Value::Null)], 1),
        with_heap(
            &[
                (7, 0, Value::Ref(3)),
                (3, 0, Value::Null),
                (9, 1, Value::Int(5)),
            ],
            7,
        ),
        // addresses past the encoder's direct table
        with_heap(
            &[
                (70_000, 0, Value::Ref(5)),
                (5, 1, Value::Ref(1 << 30)),
                (1 << 30, 0, Value::Ref(70_000)),
            ],
            70_000,
        ),
        with_heap(&[(1, 0, Value::Ref(1))], 1),
    ];
    let mut e = Encoder::default();
    // twice over, so that the encoder's tables are reused
    for _ in 0..2 {
        for s in &states {
            let (mut x, mut y) = (Vec::new(), Vec::new());
            encode(s, &mut x);
            e.encode(s, &mut y);
            assert_eq!(x, y);
        }
    }
}

#[test]
fn the_symmetric_encoding_sorts_threads_and_keeps_them_apart() {
    let thread = |pc: u32, l: bool| {
        Rc::new(Thread {
            stack: Stack::new(Frame {
                proc: 0,
                pc,
                locals: vec![Value::Bool(l)].into(),
            }),
            thread_locals: Vec::new().into(),
            atomic: false,
            atomic_steps: 0,
        })
    };
    let with = |ts: Vec<Rc<Thread>>| {
        let mut s = state(true, false);
        s.threads = Rc::from(ts);
        s
    };
    let enc = |s: &State| {
        let mut b = Vec::new();
        Encoder::default().encode_symmetric(s, &NO_DEAD, &mut b);
        b
    };
    let a = with(vec![thread(1, false), thread(2, true), thread(130, false)]);
    let b = with(vec![thread(130, false), thread(1, false), thread(2, true)]);
    assert_eq!(enc(&a), enc(&b));
    let mut plain = Vec::new();
    encode(&a, &mut plain);
    let mut plain_b = Vec::new();
    encode(&b, &mut plain_b);
    assert_ne!(plain, plain_b);
    // the same parts in another split between threads, or one thread fewer, differ
    assert_ne!(enc(&a), enc(&with(vec![thread(1, false), thread(2, true)])));
    assert_ne!(
        enc(&a),
        enc(&with(vec![
            thread(1, true),
            thread(2, false),
            thread(130, false)
        ]))
    );
}

#[test]
fn marked_threads_follow_the_permutation() {
    let thread = |pc: u32| {
        Rc::new(Thread {
            stack: Stack::new(Frame {
                proc: 0,
                pc,
                locals: vec![Value::Bool(false)].into(),
            }),
            thread_locals: Vec::new().into(),
            atomic: false,
            atomic_steps: 0,
        })
    };
    let with = |pcs: &[u32]| {
        let mut s = state(true, false);
        s.threads = pcs.iter().map(|&pc| thread(pc)).collect();
        s
    };
    let enc = |s: &State, marks: &[u32]| {
        let mut b = Vec::new();
        Encoder::default().encode_symmetric_marked(s, &NO_DEAD, marks, &mut b);
        b
    };
    let a = with(&[1, 2, 2]);
    let b = with(&[2, 1, 2]);
    // the marked thread at pc 1 in both: one state
    assert_eq!(enc(&a, &[0]), enc(&b, &[1]));
    // two threads at pc 2: either may be the marked one
    assert_eq!(enc(&a, &[1]), enc(&b, &[2]));
    assert_eq!(enc(&a, &[1]), enc(&a, &[2]));
    // the marked thread at pc 1 against one at pc 2: apart
    assert_ne!(enc(&a, &[0]), enc(&a, &[1]));
    // no thread marked (a position past the last) against a marked one
    assert_ne!(enc(&a, &[u32::MAX]), enc(&a, &[0]));
    assert_ne!(enc(&a, &[u32::MAX]), enc(&a, &[1]));
    // two marks: each follows its thread, and which mark is which counts
    assert_eq!(enc(&a, &[0, 1]), enc(&b, &[1, 0]));
    assert_ne!(enc(&a, &[0, 1]), enc(&a, &[1, 0]));
    assert_eq!(enc(&a, &[1, 1]), enc(&b, &[2, 2]));
    assert_ne!(enc(&a, &[1, 1]), enc(&a, &[1, 2]));
    // no marks: the plain symmetric bytes
    let mut plain = Vec::new();
    Encoder::default().encode_symmetric(&a, &NO_DEAD, &mut plain);
    assert_eq!(enc(&a, &[]), plain);
}

#[test]
fn visited_set_reports_new_states_once() {
    for exact in [false, true] {
        let mut v = Visited::new(exact);
        assert!(v.insert(b"abc"));
        assert!(!v.insert(b"abc"));
        assert!(v.insert(b"abd"));
        assert_eq!(v.len(), 2);
    }
}

#[test]
fn omission_bound_counts_64_bit_fingerprints() {
    assert_eq!(omission_bound(0), 0.0);
    // 2^32 states: the birthday bound alone is 2^64/2^65 = 1/2
    let b = omission_bound(1 << 32);
    assert!(b > 0.5 && b < 0.5 + 1e-9, "{b}");
}
