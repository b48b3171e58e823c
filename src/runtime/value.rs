//! Runtime values.

/// A heap address. Address 0 is the `globals` cell (seed 004 §4); objects start at 1.
pub type Addr = u32;

/// The distinguished address of the `globals` cell.
pub const GLOBALS: Addr = 0;

/// The value of a variable or field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Ref(Addr),
    Null,
}

impl Value {
    /// The boolean in a boolean slot (false for anything else, which well-typed IR never has).
    #[inline]
    pub fn as_bool(self) -> bool {
        matches!(self, Value::Bool(true))
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{}", u8::from(*b)),
            Value::Int(i) => write!(f, "{i}"),
            Value::Ref(a) => write!(f, "#{a}"),
            Value::Null => write!(f, "null"),
        }
    }
}

/// A heap location: a field of a cell. Globals are the fields of the `globals` cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub addr: Addr,
    pub field: u32,
}
