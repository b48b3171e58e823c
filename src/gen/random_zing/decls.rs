//! The declarations of a random Zing model's richer constructs: locals, types and statics.

use super::Gen;

impl Gen {
    /// Locals of the richer constructs, declared in every method body.
    pub(super) fn ext_locals(&mut self, depth: usize) {
        if self.feat.structs {
            self.line(depth, "P q;");
        }
    }

    /// Type declarations of the richer constructs.
    pub(super) fn ext_types(&mut self) {
        let f = self.feat;
        if f.structs {
            self.line(0, "struct P {");
            self.line(1, "int x;");
            self.line(1, "bool b;");
            self.line(0, "};");
            self.line(0, "");
        }
        if f.arrays {
            self.line(0, "array A[3] int;");
            self.line(0, "array D[] bool;");
            if f.structs {
                self.line(0, "array PA[2] P;");
            }
        }
        if f.sets {
            self.line(0, "set S int;");
            self.line(0, "set NS Node;");
        }
        if f.chans {
            self.line(0, "chan C int;");
            if f.structs {
                self.line(0, "chan PC P;");
            }
        }
        if f.arrays || f.sets || f.chans {
            self.line(0, "");
        }
        if f.iface {
            self.line(0, "interface Op {");
            self.line(1, "int Apply(int x);");
            self.line(1, "void Mark(Node t);");
            self.line(0, "};");
            self.line(0, "");
            self.line(0, "class Inc : Op {");
            self.line(1, "int d = 1;");
            self.line(1, "int Apply(int x) { return x + d; }");
            self.line(1, "void Mark(Node t) { t.w = !t.w; }");
            self.line(0, "};");
            self.line(0, "");
            self.line(0, "class Neg : Op {");
            self.line(1, "int Apply(int x) {");
            if f.exceptions && self.ext.chance(50) {
                self.line(2, "if (x > 2) { raise Boom; }");
            }
            self.line(2, "if (x > 0) { return 0 - x; }");
            self.line(2, "return x + 2;");
            self.line(1, "}");
            self.line(1, "void Mark(Node t) { t.v = t.v + 1; }");
            self.line(0, "};");
            self.line(0, "");
        }
    }

    /// Static fields of the richer constructs: allocated by an initializer, in `main`, or
    /// (rarely) left `null`.
    pub(super) fn ext_statics(&mut self) -> Vec<String> {
        let f = self.feat;
        let mut fields: Vec<(&str, &str, String)> = Vec::new();
        if f.structs {
            self.line(1, "static P p;");
        }
        if f.arrays {
            fields.push(("A", "arr", "new A".into()));
            let size = *self.ext.pick(&["1", "2", "3"]);
            fields.push(("D", "darr", format!("new D[{size}]")));
            if f.structs {
                fields.push(("PA", "parr", "new PA".into()));
            }
        }
        if f.sets {
            fields.push(("S", "s", "new S".into()));
            fields.push(("NS", "ns", "new NS".into()));
        }
        if f.chans {
            fields.push(("C", "c", "new C".into()));
            if f.structs {
                fields.push(("PC", "pc", "new PC".into()));
            }
        }
        if f.iface {
            self.line(1, "static Op op;");
        }
        let mut in_main = Vec::new();
        for (ty, name, init) in fields {
            match self.ext.below(20) {
                0..=9 => self.line(1, &format!("static {ty} {name} = {init};")),
                10..=18 => {
                    self.line(1, &format!("static {ty} {name};"));
                    in_main.push(format!("Main.{name} = {init};"));
                }
                _ => self.line(1, &format!("static {ty} {name};")),
            }
        }
        if f.iface {
            match self.ext.below(10) {
                0..=5 => {
                    in_main.push("c0 = choose(bool);".into());
                    in_main
                        .push("if (c0) { Main.op = new Inc; } else { Main.op = new Neg; }".into());
                }
                6..=8 => in_main.push("Main.op = new Inc;".into()),
                _ => {}
            }
        }
        in_main
    }
}
