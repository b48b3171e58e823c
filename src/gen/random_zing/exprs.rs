//! The expressions of a random Zing model: ints, bools, indices, and the atoms of the richer
//! constructs (arrays, sets, channels, structs).

use super::{Gen, LoopVar, BOOLS, INTS};

impl Gen {
    pub(super) fn int_expr(&mut self) -> String {
        if self.ext_on() && self.ext.chance(25) {
            if let Some(e) = self.ext_int_atom() {
                return e;
            }
        }
        match self.rng.below(5) {
            0 => self.rng.below(4).to_string(),
            1 => format!("{} + 1", self.rng.pick(&INTS)),
            2 => format!("{} - {}", self.rng.pick(&INTS), self.rng.below(3)),
            3 => "k".to_string(),
            _ => self.rng.pick(&INTS).to_string(),
        }
    }

    pub(super) fn bool_expr(&mut self) -> String {
        if self.ext_on() && self.ext.chance(25) {
            if let Some(e) = self.ext_bool_atom() {
                return e;
            }
        }
        match self.rng.below(7) {
            0 => format!("{} == {}", self.rng.pick(&INTS), self.rng.below(4)),
            1 => format!("{} < {}", self.rng.pick(&INTS), self.int_expr()),
            2 => format!("!{}", self.rng.pick(&BOOLS)),
            3 => "n == m".to_string(),
            4 => "n.next != null && n.next.w".to_string(),
            5 => format!("{} || {}", self.rng.pick(&BOOLS), self.rng.pick(&BOOLS)),
            _ => self.rng.pick(&BOOLS).to_string(),
        }
    }

    /// A small array index: mostly in range, sometimes not.
    pub(super) fn index(&mut self) -> String {
        match self.ext.below(10) {
            0..=2 => self.ext.below(2).to_string(),
            3 => "2".to_string(),
            4 => "k".to_string(),
            5 => "Main.a".to_string(),
            6 => "Main.b % 3".to_string(),
            // `sizeof` of a bare name: ZING's parser takes no `Main.arr` there
            7 => "sizeof(arr) - 1".to_string(),
            8 if self.feat.selfs => "self".to_string(),
            _ => "3".to_string(),
        }
    }

    /// An index into a dynamic array (whose size is 0..=3).
    pub(super) fn dindex(&mut self) -> String {
        match self.ext.below(5) {
            0 | 1 => "0".to_string(),
            2 => "1".to_string(),
            3 => "k".to_string(),
            _ => "sizeof(darr) - 1".to_string(),
        }
    }

    /// An integer operand built from the richer constructs, if the model has any.
    pub(super) fn ext_int_atom(&mut self) -> Option<String> {
        let mut opts: Vec<String> = Vec::new();
        if self.feat.arrays {
            let i = self.index();
            opts.push(format!("Main.arr[{i}]"));
            opts.push("sizeof(arr)".into());
            opts.push("sizeof(A)".into());
        }
        if self.feat.sets {
            opts.push("sizeof(s)".into());
            opts.push("sizeof(ns)".into());
        }
        if self.feat.chans {
            opts.push("sizeof(c)".into());
        }
        if self.feat.structs {
            opts.push("Main.p.x".into());
            opts.push("n.pt.x".into());
            opts.push("q.x + 1".into());
            if self.feat.arrays {
                let i = self.index();
                opts.push(format!("Main.parr[{i}].x"));
            }
        }
        if self.feat.selfs {
            opts.push("self".into());
            opts.push("self + 1".into());
        }
        match self.loop_var {
            LoopVar::Int => {
                opts.push("v".into());
                opts.push("v".into());
            }
            LoopVar::Node => opts.push("v.v".into()),
            _ => {}
        }
        if opts.is_empty() {
            None
        } else {
            Some(opts.swap_remove(self.ext.below(opts.len())))
        }
    }

    /// A boolean operand built from the richer constructs (parenthesized), if any.
    pub(super) fn ext_bool_atom(&mut self) -> Option<String> {
        let mut opts: Vec<String> = Vec::new();
        if self.feat.arrays {
            let i = self.dindex();
            opts.push(format!("Main.darr[{i}]"));
            let i = self.index();
            let c = self.ext.below(3);
            opts.push(format!("(Main.arr[{i}] == {c})"));
        }
        if self.feat.sets {
            let e = self.int_expr();
            opts.push(format!("({e} in Main.s)"));
            opts.push("(m in Main.ns)".into());
            opts.push(format!("(sizeof(s) > {})", self.ext.below(3)));
        }
        if self.feat.chans {
            opts.push("(sizeof(c) == 0)".into());
        }
        if self.feat.structs {
            opts.push("Main.p.b".into());
            opts.push("m.pt.b".into());
            opts.push("!q.b".into());
        }
        if self.feat.selfs {
            opts.push("(self == 0)".into());
        }
        match self.loop_var {
            LoopVar::Bool => {
                opts.push("v".into());
                opts.push("!v".into());
            }
            LoopVar::Int => opts.push(format!("(v < {})", self.ext.below(3))),
            LoopVar::Node => opts.push("(v.w || v == n)".into()),
            LoopVar::None => {}
        }
        if opts.is_empty() {
            None
        } else {
            Some(opts.swap_remove(self.ext.below(opts.len())))
        }
    }
}
