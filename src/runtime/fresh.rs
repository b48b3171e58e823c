//! Freshly allocated objects that no other thread can reach yet.
//!
//! A local is *fresh* before a node when, on every path from the frame's entry, it was last
//! written by a `new` of this frame and its value has since been read only as the base of a
//! field access (`y.f`, `y.f = e`). Its object is then reachable from that local alone: the
//! reference was never copied into another variable, a field, an argument, a message or a
//! result, so no other thread can reach the object, and a step that reads or writes its
//! fields touches only the running thread's data (a both-mover; `independence` counts it as
//! private, and `guarded` does not count it as an access to shared data).
//!
//! Any other read of the local (a copy, a comparison, an argument) ends the fact, as does any
//! other write to it; a handler or a new thread's start (which copies the frame) knows none.

use zingrs_lang::ir::{Expr, LValue, Operand, Proc, Stmt};

/// Per node of `p`: the locals fresh before it whose reference the node does not let escape
/// (a call's results are written when it returns, after its arguments have left), sorted. A
/// field access through one of them touches only the running thread's data.
pub(super) fn fresh_locals(p: &Proc) -> Vec<Vec<u32>> {
    let roots = super::dataflow::roots(p);
    let start: Vec<(usize, Vec<u32>)> = roots.iter().map(|&r| (r, Vec::new())).collect();
    let before = super::dataflow::must_forward(
        p,
        &start,
        |pc, facts| after(&p.nodes[pc].stmt, facts),
        |_, s| !roots.contains(&s),
    );
    before
        .into_iter()
        .zip(&p.nodes)
        .map(|(f, node)| {
            let mut f = f.unwrap_or_default();
            let (escaped, _) = escapes(&node.stmt);
            f.retain(|x| !escaped.contains(x));
            f.sort_unstable();
            f
        })
        .collect()
}

/// The locals whose reference `stmt` reads other than as a field access's base, and the
/// locals it writes.
fn escapes(stmt: &Stmt) -> (Vec<u32>, Vec<u32>) {
    let mut reads: Vec<u32> = Vec::new();
    let mut bases: Vec<u32> = Vec::new();
    let mut written: Vec<u32> = Vec::new();
    stmt.for_each_operand(|op| match op {
        Operand::Write(lv) => match lv {
            LValue::Local(x) => written.push(*x),
            LValue::Field(base, _) => {
                if let Expr::Local(y) = **base {
                    bases.push(y);
                }
            }
            _ => {}
        },
        Operand::Read(e) => e.walk(&mut |e| match e {
            Expr::Local(x) | Expr::PrimedLocal(x) => reads.push(*x),
            Expr::Field(base, _) => {
                if let Expr::Local(y) = **base {
                    bases.push(y);
                }
            }
            _ => {}
        }),
    });
    let count = |v: &[u32], x: u32| v.iter().filter(|&&y| y == x).count();
    let mut escaped: Vec<u32> = reads
        .iter()
        .copied()
        .filter(|&x| count(&reads, x) > count(&bases, x))
        .collect();
    escaped.dedup();
    (escaped, written)
}

/// The fresh locals after `stmt`, from those before it.
fn after(stmt: &Stmt, facts: &mut Vec<u32>) {
    if matches!(stmt, Stmt::StartThreadGoto) {
        facts.clear();
        return;
    }
    let (escaped, written) = escapes(stmt);
    facts.retain(|x| !escaped.contains(x) && !written.contains(x));
    if let Stmt::New {
        target: LValue::Local(x),
        ..
    } = stmt
    {
        if !facts.contains(x) {
            facts.push(*x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zingrs_lang::Lang;

    /// The source lines of `Writer`'s nodes at which local `n` holds a fresh object.
    fn fresh_lines(body: &str) -> Vec<u32> {
        let text = format!(
            "class Node {{ int v; Node next; }};
class Main {{
    static Node shared;
    static void Use(Node a) {{ }}
    static void Writer() {{
        Node n;
        Node k;
{body}
    }}
    activate static void main() {{ async Writer(); }}
}};
"
        );
        let program = zingrs_lang::compile("t.zing", &text, Lang::Zing)
            .expect("the model compiles")
            .program;
        let (i, p) = program
            .procs
            .iter()
            .enumerate()
            .find(|(_, p)| p.name.ends_with("Writer"))
            .expect("Writer");
        let n = p
            .locals
            .iter()
            .position(|v| v.name == "n")
            .expect("local n") as u32;
        let mut lines: Vec<u32> = fresh_locals(p)
            .iter()
            .enumerate()
            .filter(|(_, f)| f.contains(&n))
            .map(|(pc, _)| program.line_of(i as u32, pc as u32))
            .collect();
        lines.dedup();
        lines
    }

    #[test]
    fn a_new_object_is_fresh_until_its_reference_is_read() {
        // lines 8-11: the new, two field writes, then the publication
        let body = "        n = new Node;\n        n.v = 1;\n        n.next = n.next;\n        shared = n;\n        n.v = 2;";
        assert_eq!(fresh_lines(body), vec![9, 10]);
    }

    #[test]
    fn copies_arguments_and_comparisons_end_freshness() {
        for publish in ["k = n;", "Use(n);", "assert(n != null);"] {
            let body = format!("        n = new Node;\n        {publish}\n        n.v = 1;");
            assert_eq!(fresh_lines(&body), Vec::<u32>::new(), "{publish}");
        }
    }

    #[test]
    fn storing_another_fresh_object_into_one_ends_only_the_stored_ones() {
        let body =
            "        n = new Node;\n        k = new Node;\n        n.next = k;\n        n.v = 1;";
        // n stays fresh through the store of k into its field, up to the return (line 12)
        assert_eq!(fresh_lines(body), vec![9, 10, 11, 12]);
    }

    #[test]
    fn a_path_without_the_new_is_not_fresh() {
        let body = "        if (shared == null) { n = new Node; }\n        n.v = 1;";
        assert_eq!(fresh_lines(body), Vec::<u32>::new());
    }
}
