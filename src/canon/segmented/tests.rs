use super::*;
use crate::runtime::{Frame, Stack};

fn obj(fields: Vec<Value>) -> Rc<Object> {
    Rc::new(Object {
        class: 0,
        fields: fields.into(),
    })
}

fn state(globals: Vec<Value>, locals: Vec<Value>, heap: &[(Addr, Vec<Value>)]) -> State {
    State {
        globals: globals.into(),
        threads: Rc::from(vec![Rc::new(Thread {
            stack: Stack::new(Frame {
                proc: 0,
                pc: 0,
                locals: locals.into(),
            }),
            thread_locals: Vec::new().into(),
            atomic: false,
            atomic_steps: 0,
        })]),
        heap: heap.iter().map(|(a, f)| (*a, obj(f.clone()))).collect(),
    }
}

/// `f` applied to a copy of `s` that shares what `f` does not change.
fn step(s: &State, f: impl FnOnce(&mut State)) -> State {
    let mut c = s.clone();
    f(&mut c);
    c
}

#[test]
fn renamed_heaps_and_garbage_fingerprint_equally() {
    let mut h = SegmentHasher::default();
    let a = state(
        vec![Value::Ref(1)],
        vec![],
        &[(1, vec![Value::Ref(2)]), (2, vec![Value::Null])],
    );
    let b = state(
        vec![Value::Ref(7)],
        vec![],
        &[
            (7, vec![Value::Ref(3)]),
            (3, vec![Value::Null]),
            (9, vec![Value::Int(4)]),
        ],
    );
    assert_eq!(h.full(&a), h.full(&b));
    let c = state(vec![Value::Ref(1)], vec![], &[(1, vec![Value::Ref(1)])]);
    assert_ne!(h.full(&a), h.full(&c));
}

#[test]
fn successors_fingerprint_as_the_whole_walk_does() {
    let mut h = SegmentHasher::default();
    let s = state(
        vec![Value::Ref(1), Value::Bool(false)],
        vec![Value::Ref(2), Value::Int(3)],
        &[
            (1, vec![Value::Ref(2), Value::Bool(false)]),
            (2, vec![Value::Null]),
            (5, vec![Value::Int(0)]),
        ],
    );
    let canon = h.canon(&s);
    assert_eq!(canon.fp, h.full(&s));
    let children = [
        // a global, a local, a reachable field, a garbage field: incremental
        step(&s, |c| {
            c.globals = vec![Value::Ref(1), Value::Bool(true)].into()
        }),
        step(&s, |c| {
            c.thread_mut(0).stack = Stack::new(Frame {
                proc: 0,
                pc: 1,
                locals: vec![Value::Ref(2), Value::Int(4)].into(),
            })
        }),
        step(&s, |c| {
            c.heap
                .insert(1, obj(vec![Value::Ref(2), Value::Bool(true)]));
        }),
        step(&s, |c| {
            c.heap.insert(5, obj(vec![Value::Int(9)]));
        }),
        step(&s, |c| {
            c.heap.insert(6, obj(vec![Value::Int(9)]));
        }),
        // references moved: the whole walk
        step(&s, |c| {
            c.heap.insert(1, obj(vec![Value::Null, Value::Bool(false)]));
        }),
        step(&s, |c| {
            c.globals = vec![Value::Ref(5), Value::Bool(false)].into();
        }),
        step(&s, |c| {
            c.thread_mut(0).stack = Stack::new(Frame {
                proc: 0,
                pc: 0,
                locals: vec![Value::Ref(1), Value::Int(3)].into(),
            })
        }),
    ];
    let touched: &[Addr] = &[1, 5, 6];
    for (i, c) in children.iter().enumerate() {
        let inc = h.successor(&s, &canon, c, None);
        assert_eq!(inc, h.successor(&s, &canon, c, Some(touched)), "child {i}");
        assert_eq!(inc.is_some(), i < 5, "child {i}");
        if let Some(fp) = inc {
            assert_eq!(fp, h.full(c), "child {i}");
            // children 3 and 4 changed only garbage
            assert_eq!(fp == canon.fp, i >= 3, "child {i}");
        }
    }
}

/// A state of threads `(proc, pc, local)` and one global.
fn threads(g: bool, ts: &[(u32, u32, bool)]) -> State {
    let threads: Vec<Rc<Thread>> = ts
        .iter()
        .map(|&(proc, pc, l)| {
            Rc::new(Thread {
                stack: Stack::new(Frame {
                    proc,
                    pc,
                    locals: vec![Value::Bool(l)].into(),
                }),
                thread_locals: Vec::new().into(),
                atomic: false,
                atomic_steps: 0,
            })
        })
        .collect();
    State {
        globals: vec![Value::Bool(g)].into(),
        threads: Rc::from(threads),
        heap: Default::default(),
    }
}

#[test]
fn symmetric_fingerprints_ignore_the_order_of_threads_and_nothing_else() {
    let a = threads(true, &[(0, 1, false), (1, 2, true), (1, 3, false)]);
    let b = threads(true, &[(1, 3, false), (0, 1, false), (1, 2, true)]);
    let mut plain = SegmentHasher::default();
    let mut sym = SegmentHasher::default().symmetric(true);
    assert_ne!(plain.full(&a), plain.full(&b));
    assert_eq!(sym.full(&a), sym.full(&b));
    // a different local, pc, procedure, global or number of threads still differs
    for other in [
        threads(true, &[(0, 1, false), (1, 2, false), (1, 3, false)]),
        threads(true, &[(0, 1, false), (1, 2, true), (1, 2, false)]),
        threads(true, &[(0, 1, false), (0, 2, true), (1, 3, false)]),
        threads(false, &[(0, 1, false), (1, 2, true), (1, 3, false)]),
        threads(true, &[(0, 1, false), (1, 2, true)]),
        threads(
            true,
            &[(0, 1, false), (1, 2, true), (1, 3, false), (1, 3, false)],
        ),
    ] {
        assert_ne!(sym.full(&a), sym.full(&other));
    }
    // two equal threads are not one
    let two = threads(true, &[(1, 2, true), (1, 2, true)]);
    let one = threads(true, &[(1, 2, true)]);
    assert_ne!(sym.full(&two), sym.full(&one));
}

#[test]
fn symmetric_successors_fingerprint_as_the_whole_walk_does() {
    let mut h = SegmentHasher::default().symmetric(true);
    let s = threads(false, &[(0, 1, false), (1, 2, true), (1, 2, true)]);
    let canon = h.canon(&s);
    assert_eq!(canon.fp, h.full(&s));
    for tid in 0..3 {
        let c = step(&s, |c| {
            c.thread_mut(tid).stack = Stack::new(Frame {
                proc: 1,
                pc: 5,
                locals: vec![Value::Bool(false)].into(),
            })
        });
        let inc = h.successor(&s, &canon, &c, Some(&[])).expect("incremental");
        assert_eq!(inc, h.full(&c), "thread {tid}");
    }
    // thread 1 or thread 2 moving to one place gives one state
    let by = |tid| {
        step(&s, |c| {
            c.thread_mut(tid).stack = Stack::new(Frame {
                proc: 1,
                pc: 5,
                locals: vec![Value::Bool(true)].into(),
            })
        })
    };
    assert_eq!(
        h.successor(&s, &canon, &by(1), Some(&[])),
        h.successor(&s, &canon, &by(2), Some(&[]))
    );
}

/// Threads `(pc, local)` under one global, over a heap of one-field objects.
fn holders(g: Value, ts: &[(u32, Value)], heap: &[(Addr, Vec<Value>)]) -> State {
    let mut s = state(vec![g], vec![], heap);
    s.threads = ts
        .iter()
        .map(|&(pc, l)| {
            Rc::new(Thread {
                stack: Stack::new(Frame {
                    proc: 0,
                    pc,
                    locals: vec![l].into(),
                }),
                thread_locals: Vec::new().into(),
                atomic: false,
                atomic_steps: 0,
            })
        })
        .collect();
    s
}

#[test]
fn symmetric_successors_stay_incremental_while_threads_hold_only_shared_objects() {
    let mut h = SegmentHasher::default().symmetric(true);
    // a lock object the global points to, held by both threads, and garbage at 4
    let heap = [(1, vec![Value::Bool(false)]), (4, vec![Value::Int(3)])];
    let s = holders(
        Value::Ref(1),
        &[(1, Value::Ref(1)), (2, Value::Ref(1))],
        &heap,
    );
    let canon = h.canon(&s);
    assert_eq!(canon.fp, h.full(&s));
    let moved = |tid: usize, pc| {
        step(&s, |c| {
            c.thread_mut(tid).stack = Stack::new(Frame {
                proc: 0,
                pc,
                locals: vec![Value::Ref(1)].into(),
            })
        })
    };
    // either thread moving on, the lock taken: fingerprinted from the parts that changed
    for tid in 0..2 {
        let c = moved(tid, 7);
        let inc = h.successor(&s, &canon, &c, None).expect("incremental");
        assert_eq!(inc, h.full(&c), "thread {tid}");
        let mut taken = c.clone();
        taken.heap.insert(1, obj(vec![Value::Bool(true)]));
        let inc = h.successor(&s, &canon, &taken, None).expect("incremental");
        assert_eq!(inc, h.full(&taken), "thread {tid}");
    }
    // thread 0 at 2 and thread 1 at 1 is the state itself, reordered; from it, thread 0
    // going to 7 is thread 1 going there
    let swapped = moved(0, 2);
    let swapped = step(&swapped, |c| {
        c.thread_mut(1).stack = Stack::new(Frame {
            proc: 0,
            pc: 1,
            locals: vec![Value::Ref(1)].into(),
        })
    });
    assert_eq!(h.full(&swapped), canon.fp);
    assert_eq!(
        h.successor(&s, &canon, &moved(1, 7), None),
        Some(h.full(&step(&swapped, |c| {
            c.thread_mut(0).stack = Stack::new(Frame {
                proc: 0,
                pc: 7,
                locals: vec![Value::Ref(1)].into(),
            })
        })))
    );
    // a thread that holds an object the global does not reach: its successors take the
    // whole walk (the threads' order numbers that object)
    let own = holders(
        Value::Ref(1),
        &[(1, Value::Ref(4)), (2, Value::Ref(1))],
        &heap,
    );
    let canon = h.canon(&own);
    assert_eq!(canon.fp, h.full(&own));
    let c = step(&own, |c| {
        c.thread_mut(1).stack = Stack::new(Frame {
            proc: 0,
            pc: 7,
            locals: vec![Value::Ref(1)].into(),
        })
    });
    assert_eq!(h.successor(&own, &canon, &c, None), None);
}
