//! Concurrent boolean programs in the Getafix layout (`init` + `thread*` procedures,
//! bp-language.md §5.13) for bounded context switching (`--contexts K`, issue 15):
//!
//! | family              | reaches `SLIC_ERROR` with K context switches                   |
//! |---------------------|-----------------------------------------------------------------|
//! | `fib-bp N`          | iff K ≥ 2N − 1                                                  |
//! | `bluetooth-bp A S`  | 1 adder, 1 stopper: never; 1A 2S, 2A 2S: K ≥ 3; 2A 1S: K ≥ 4      |
//!
//! The second column is derived in each generator's comment; the Bluetooth rows are the
//! Reachable column of seed 002 Figure 3.

use std::fmt::Write;

/// Fibonacci numbers with F(1) = F(2) = 1.
fn fib(k: u64) -> u128 {
    let (mut a, mut b) = (0u128, 1u128);
    for _ in 0..k {
        (a, b) = (b, a.saturating_add(b));
    }
    a
}

/// The bits of an unsigned `w`-bit variable `x`: `x0` (least significant) … `x{w-1}`.
fn bits(x: &str, w: u32) -> Vec<String> {
    (0..w).map(|k| format!("{x}{k}")).collect()
}

/// The sum bits of `a + b` (mod 2^w) as expressions over the bits, with the carries inlined
/// (one parallel assignment, so the addition is one step).
fn sum_bits(a: &[String], b: &[String]) -> Vec<String> {
    let mut carry = String::from("F");
    let mut out = Vec::new();
    for (x, y) in a.iter().zip(b) {
        if carry == "F" {
            out.push(format!("({x} ^ {y})"));
            carry = format!("({x} & {y})");
        } else {
            out.push(format!("({x} ^ {y} ^ {carry})"));
            carry = format!("(({x} & {y}) | ({carry} & ({x} | {y})))");
        }
    }
    out
}

/// The test `x = value` over the bits of `x`.
fn equals(x: &[String], value: u128) -> String {
    x.iter()
        .enumerate()
        .map(|(k, b)| {
            if value >> k & 1 == 1 {
                b.clone()
            } else {
                format!("!{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(" & ")
}

/// `fib-bp N`: two threads share unsigned integers `i` and `j` (both 1 after `init`), thread1
/// does `i := i + j` N times and thread2 `j := j + i` N times, each addition one step, and
/// each thread reaches `SLIC_ERROR` when its variable equals F(2N + 2). The width is 8 bits, or
/// more when F(2N + 2) needs more (N ≥ 6), so no addition ever wraps.
///
/// Why K ≥ 2N − 1 exactly: every addition sets its variable to i + j, so the larger value
/// after a step is the sum of the pair before it. From (1, 1) the sum grows fastest when each
/// step adds to the variable the previous step did not change (the smaller one), giving the
/// Fibonacci numbers; after k ≤ 2N steps the larger value is at most F(k + 2), reached only
/// when the threads alternate at every step. F(2N + 2) therefore needs all 2N additions in
/// strict alternation: 2N contexts, 2N − 1 switches.
pub fn fib_bp(n: u64) -> String {
    let n = n.max(1);
    let goal = fib(2 * n + 2);
    let w = (128 - goal.leading_zeros()).max(8);
    let (i, j) = (bits("i", w), bits("j", w));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// fib-bp {n}: i += j and j += i, {n} times each, over {w}-bit integers; SLIC_ERROR \
         when one equals F({}) = {goal},\n// which needs strict alternation: reachable with \
         --contexts {} or more, not below\n",
        2 * n + 2,
        2 * n - 1
    );
    let _ = writeln!(s, "decl {}, {};\n", i.join(", "), j.join(", "));
    let one: Vec<&str> = (0..w).map(|k| if k == 0 { "T" } else { "F" }).collect();
    let _ = writeln!(
        s,
        "void init()\nbegin\n  {}, {} := {}, {};\n  endinit: skip;\nend\n",
        i.join(", "),
        j.join(", "),
        one.join(", "),
        one.join(", ")
    );
    for (t, (x, y)) in [(&i, &j), (&j, &i)].into_iter().enumerate() {
        let _ = writeln!(s, "void thread{}()\nbegin", t + 1);
        let sum = sum_bits(x, y);
        for _ in 0..n {
            let _ = writeln!(s, "  {} := {};", x.join(", "), sum.join(", "));
            let _ = writeln!(s, "  if ({}) then SLIC_ERROR: skip; fi", equals(x, goal));
        }
        let _ = writeln!(s, "end\n");
    }
    s
}

/// `bluetooth-bp A S`: the Windows NT Bluetooth driver of seed 002 Figure 3 (after Qadeer and
/// Wu's model), A adder threads and S stopper threads, written from that description.
///
/// Globals: `pendingIo` (three bits, mod 8, starts at 1), `stoppingFlag`, `stoppingEvent`,
/// `stopped`. `IoIncrement` reads `pendingIo` and writes it back plus one in a second step (a
/// lost update is possible), then fails (decrementing again) if `stoppingFlag` is set.
/// `IoDecrement` decrements in one step and sets `stoppingEvent` if the new value is 0. An
/// adder that passes `IoIncrement` does its I/O — `SLIC_ERROR` if the driver is `stopped` —
/// and calls `IoDecrement`. A stopper sets `stoppingFlag`, calls `IoDecrement`, waits for
/// `stoppingEvent` and sets `stopped`.
///
/// Why the table's verdicts: `pendingIo` is 1 + (increments that were not lost) −
/// (decrements); every adder's decrement follows its own increment, so without a lost
/// update `pendingIo` ≥ 1 + (working adders) − (stoppers' decrements).
/// * One stopper, one adder: the only stale write is the adder's, which can only undo the
///   stopper's decrement (making `pendingIo` larger): `stopped` never holds while the adder
///   works. Never reachable.
/// * Two stoppers: the adder increments (2) and tests the flag (clear); stopper 1 sets the
///   flag and decrements (1); stopper 2 decrements (0), sets the event and `stopped`; the adder
///   reaches `SLIC_ERROR`: three switches. Two are not enough: the adder must test the flag
///   before any stopper sets it and look at `stopped` after both stoppers have decremented,
///   so adder, stopper, stopper, adder are four contexts.
/// * Two adders, one stopper: the stopper's one decrement only cancels the initial 1, so
///   some working adder's increment must be lost: adder X reads 1; adder W increments to 2
///   and tests the flag (clear); X writes 2 (W's increment is lost), works, decrements to 1
///   and ends; the stopper decrements to 0 and sets `stopped`; W reaches `SLIC_ERROR`: four
///   switches. The lost update takes the contexts X, W, X, and W must run again after the
///   stopper's, so three switches are not enough.
pub fn bluetooth_bp(adders: u64, stoppers: u64) -> String {
    let (adders, stoppers) = (adders.max(1), stoppers.max(1));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// bluetooth-bp {adders} {stoppers}: the Bluetooth driver (seed 002 Figure 3) with \
         {adders} adder(s) and {stoppers} stopper(s);\n// SLIC_ERROR: an adder does I/O after the \
         driver stopped\n"
    );
    s.push_str(
        "decl p0, p1, p2, stoppingFlag, stoppingEvent, stopped;\n\n\
         void init()\nbegin\n  \
         p0, p1, p2, stoppingFlag, stoppingEvent, stopped := T, F, F, F, F, F;\n  \
         endinit: skip;\nend\n\n\
         bool IoIncrement()\nbegin\n  decl t0, t1, t2;\n  \
         t0, t1, t2 := p0, p1, p2;\n  \
         p0, p1, p2 := !t0, t1 ^ t0, t2 ^ (t1 & t0);\n  \
         if (stoppingFlag) then\n    IoDecrement();\n    return F;\n  fi\n  \
         return T;\nend\n\n\
         void IoDecrement()\nbegin\n  decl zero;\n  \
         p0, p1, p2, zero := !p0, p1 ^ !p0, p2 ^ (!p1 & !p0), p0 & !p1 & !p2;\n  \
         if (zero) then stoppingEvent := T; fi\nend\n\n",
    );
    for a in 1..=adders {
        let _ = writeln!(
            s,
            "void thread_adder{a}()\nbegin\n  decl status;\n  status := IoIncrement();\n  \
             if (status) then\n    if (stopped) then SLIC_ERROR: skip; fi\n    \
             IoDecrement();\n  fi\nend\n"
        );
    }
    for k in 1..=stoppers {
        let _ = writeln!(
            s,
            "void thread_stopper{k}()\nbegin\n  stoppingFlag := T;\n  IoDecrement();\n  \
             assume(stoppingEvent);\n  stopped := T;\nend\n"
        );
    }
    s
}

/// A random concurrent program in the Getafix layout for differential testing (issue 15):
/// `zingrs gen random-bp SEED --size SIZE` with `main` renamed `thread1`, an `init` that only
/// reaches `endinit`, and `--contexts K` (K = SEED mod 3) added to the options. `thread2` is
/// a copy of `thread1` for even seeds (identical threads) and a procedure of its own for odd
/// ones (so that an error may need more switches than K: the threads then do different
/// things). Assertions are filters in this layout, so only programs whose options select
/// `--target HIT` have a property.
pub fn random_getafix(seed: u64, size: u32) -> String {
    use crate::gen::random_bp::{random_sequential_bp, random_sequential_bp_with_main2};
    let distinct = seed % 2 == 1;
    let text = if distinct {
        random_sequential_bp_with_main2(seed, size)
    } else {
        random_sequential_bp(seed, size)
    };
    let text = text
        .replace("main(", "thread1(")
        .replace("main2(", "thread2(");
    let k = seed % 3;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match lines.iter().position(|l| l.starts_with("// options:")) {
        Some(i) => lines[i].push_str(&format!(" --contexts {k}")),
        None => {
            let at = lines.iter().take_while(|l| l.starts_with("//")).count();
            lines.insert(at, format!("// options: --contexts {k}"));
        }
    }
    if !distinct {
        let start = lines
            .iter()
            .position(|l| l.contains(" thread1(") && !l.starts_with(' '))
            .expect("the entry procedure");
        let end = start
            + lines[start..]
                .iter()
                .position(|l| l == "end")
                .expect("it ends");
        let mut copy: Vec<String> = lines[start..=end].to_vec();
        copy[0] = copy[0].replacen("thread1(", "thread2(", 1);
        lines.extend(copy);
    }
    lines.push("void init() begin".into());
    lines.push("  endinit: skip;".into());
    lines.push("end".into());
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fibonacci_numbers() {
        assert_eq!(
            (1..=12).map(fib).collect::<Vec<_>>(),
            vec![1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144]
        );
    }

    #[test]
    fn widths_grow_past_eight_bits_only_when_needed() {
        // F(12) = 144 fits in 8 bits; F(14) = 377 needs 9
        assert!(fib_bp(5).contains("i7, j0"));
        assert!(fib_bp(6).contains("i8, j0"));
    }
}
