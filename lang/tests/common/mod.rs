//! Shared test data: the conformance programs of bp-language.md Appendix A.

#![allow(dead_code)]

/// Appendix A programs A1–A23 (fragments wrapped into complete programs), by name.
pub const APPENDIX_A: &[(&str, &str)] = &[
    (
        "A1",
        "void probe() begin
  decl t;
  if (t) then HIT: skip; fi
  t := F;
end
void main() begin
  probe();
  probe();
end
",
    ),
    (
        "A2",
        "bool pick() begin
  return;
end
void main() begin
  decl v;
  v := pick();
  if (v) then HIT: skip; fi
end
",
    ),
    (
        "A3",
        "void main() begin
  decl a, b, x;
  a, b := F, F;
  x := a & b = F;
  if (x) then HIT: skip; fi
end
",
    ),
    (
        "A4",
        "void main() begin
  decl x;
  x := T | T ^ T; if (x) then HIT: skip; fi
end
",
    ),
    (
        "A5",
        "void main() begin
  decl x;
  x := F => F => F; if (x) then HIT: skip; fi
end
",
    ),
    (
        "A6",
        "void main() begin
  decl x, y, z;
  x, y, z := schoose[T,T], schoose[F,T], schoose[F,F];
  if (!x | y) then BAD: skip; fi
  if (z) then HIT: skip; fi
end
",
    ),
    (
        "A7",
        "decl p, q;
void main() begin
  p, q := *, * constrain 'p != 'q;
  if (p = q) then HIT: skip; fi
end
",
    ),
    (
        "A8",
        "void main() begin
  decl p;
  p := *; p := * constrain !p & 'p; if (!p) then HIT: skip; fi
end
",
    ),
    (
        "A9",
        "decl g;
void raise() begin
  g := T;
end
void main() begin
  enforce !g;
  raise();
  HIT: skip;
end
",
    ),
    (
        "A10",
        "decl g;
void body() begin
  enforce g;
  HIT: skip;
end
void main() begin
  g := F;
  body();
end
",
    ),
    (
        "A11",
        "void side() begin
  decl a;
  a := F;
  if (a) then HIT: skip; fi
end
void main() begin
  side();
  HIT: skip;
end
",
    ),
    (
        "A12",
        "decl g;
bool f() begin
  g := T;
  return F;
end
void main() begin
  g := f();
  if (g) then HIT: skip; fi
end
",
    ),
    (
        "A13",
        "decl g; void main() begin assert(g); if (!g) then HIT: skip; fi end
",
    ),
    (
        "A14",
        "void main() begin
  decl x;
  x := F;
  goto A, B;
  A: x := T;
  B: if (x) then HIT: skip; fi
end
",
    ),
    (
        "A15",
        "void main() begin
  decl t; t := F; dead t; if (t) then HIT: skip; fi
end
",
    ),
    (
        "A16",
        "decl g, h;
void main() begin
  g, h := F, F;
  constrain('h = h);
  if (g) then HIT: skip; fi
end
",
    ),
    (
        "A17",
        "decl flag;
void worker() begin
  flag := T;
end
void main() begin
  flag := F;
  start_thread worker();
  if (flag) then HIT: skip; fi
end
",
    ),
    (
        "A18",
        "decl flag;
void worker() begin
  flag := T;
end
void main() begin
  atomic_begin;
  flag := F;
  start_thread worker();
  if (flag) then HIT: skip; fi
  atomic_end;
end
",
    ),
    (
        "A19",
        "decl done;
void main() begin
  decl mine;
  done, mine := F, F;
  start_thread goto W;
  mine := T;
  goto Z;
  W: if (mine) then done := T; fi
  end_thread;
  Z: if (done) then HIT: skip; fi
end
",
    ),
    (
        "A20",
        "decl g;
void clear() begin
  g := F;
end
void main() begin
  g := T;
  ASYNC_1: clear();
  if (g) then HIT: skip; fi
end
",
    ),
    (
        "A21",
        "bool<2> pair() begin skip; end
void main() begin
  decl a, b;
  a, b := pair(); if (a != b) then HIT: skip; fi
end
",
    ),
    (
        "A22",
        "void main() begin
  decl a;
  a := T; a := a & *; if (!a) then HIT: skip; fi
end
",
    ),
    (
        "A23",
        "decl g;
void main() begin
  enforce g;
  if (!g) then HIT: skip; fi
end
",
    ),
];
