//! Zing types (zing-language.md §3) and the conversion rules between them.

use serde::Serialize;

/// Index of a type declaration in [`super::ast::Model::decls`].
pub type DeclId = u32;

/// A resolved Zing type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Type {
    Bool,
    Byte,
    SByte,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    /// An enum type (its declaration).
    Enum(DeclId),
    /// A range type: an `int` that `choose` enumerates over `lo..hi`.
    Range(DeclId),
    /// A struct (value) type.
    Struct(DeclId),
    /// A class (reference) type.
    Class(DeclId),
    /// An interface (reference) type.
    Interface(DeclId),
    /// An array (reference) type.
    Array(DeclId),
    /// A set (reference) type.
    Set(DeclId),
    /// A channel (reference) type.
    Chan(DeclId),
    /// `object`: any reference; also the type of `null`.
    Object,
    /// A string literal (only legal in `assert`, `trace` and `invokeplugin`).
    Str,
    /// No value (method results only).
    Void,
    /// The type of an erroneous expression; converts to and from everything so that one
    /// mistake is reported once.
    Error,
}

impl Type {
    /// Whether this is one of the eight integer types (ranges count as `int`).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Type::Byte
                | Type::SByte
                | Type::Short
                | Type::UShort
                | Type::Int
                | Type::UInt
                | Type::Long
                | Type::ULong
                | Type::Range(_)
        )
    }

    /// Whether values of this type are heap references.
    pub fn is_reference(self) -> bool {
        matches!(
            self,
            Type::Class(_)
                | Type::Interface(_)
                | Type::Array(_)
                | Type::Set(_)
                | Type::Chan(_)
                | Type::Object
        )
    }

    /// Whether this is a signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Type::SByte | Type::Short | Type::Int | Type::Long | Type::Range(_)
        )
    }

    /// Range types behave as `int`.
    pub fn normalized(self) -> Type {
        match self {
            Type::Range(_) => Type::Int,
            t => t,
        }
    }

    /// The type after C# unary numeric promotion (narrow integers and enums become `int`).
    pub fn promoted(self) -> Type {
        match self {
            Type::Byte | Type::SByte | Type::Short | Type::UShort | Type::Range(_) => Type::Int,
            Type::Enum(_) => Type::Int,
            t => t,
        }
    }

    /// The inclusive value range of an integer type.
    pub fn int_bounds(self) -> Option<(i128, i128)> {
        Some(match self.normalized() {
            Type::Byte => (0, 255),
            Type::SByte => (-128, 127),
            Type::Short => (-32768, 32767),
            Type::UShort => (0, 65535),
            Type::Int => (i32::MIN as i128, i32::MAX as i128),
            Type::UInt => (0, u32::MAX as i128),
            Type::Long => (i64::MIN as i128, i64::MAX as i128),
            Type::ULong => (0, u64::MAX as i128),
            _ => return None,
        })
    }

    /// The name of a built-in type, `None` for declared ones.
    pub fn builtin_name(self) -> Option<&'static str> {
        Some(match self {
            Type::Bool => "bool",
            Type::Byte => "byte",
            Type::SByte => "sbyte",
            Type::Short => "short",
            Type::UShort => "ushort",
            Type::Int => "int",
            Type::UInt => "uint",
            Type::Long => "long",
            Type::ULong => "ulong",
            Type::Object => "object",
            Type::Str => "string",
            Type::Void => "void",
            Type::Error => "{error}",
            _ => return None,
        })
    }

    /// The declaration of a declared type.
    pub fn decl(self) -> Option<DeclId> {
        match self {
            Type::Enum(d)
            | Type::Range(d)
            | Type::Struct(d)
            | Type::Class(d)
            | Type::Interface(d)
            | Type::Array(d)
            | Type::Set(d)
            | Type::Chan(d) => Some(d),
            _ => None,
        }
    }
}

/// C# implicit numeric widening plus Zing's `int` ↔ `byte` (§3).
pub fn numeric_implicit(from: Type, to: Type) -> bool {
    use Type::*;
    let (from, to) = (from.normalized(), to.normalized());
    if from == to {
        return true;
    }
    match from {
        Byte => matches!(to, Short | UShort | Int | UInt | Long | ULong),
        SByte => matches!(to, Short | Int | Long),
        Short => matches!(to, Int | Long),
        UShort => matches!(to, Int | UInt | Long | ULong),
        Int => matches!(to, Long | Byte),
        UInt => matches!(to, Long | ULong),
        _ => false,
    }
}

/// C# binary numeric promotion of two integer operands; `None` when they cannot be mixed
/// (`ulong` with a signed type). `lit_*` says an operand is a non-negative literal, which
/// converts to any integer type that holds it.
pub fn binary_promotion(a: Type, b: Type, lit_a: bool, lit_b: bool) -> Option<Type> {
    use Type::*;
    let (a, b) = (a.promoted(), b.promoted());
    if a == ULong || b == ULong {
        let other = if a == ULong { (b, lit_b) } else { (a, lit_a) };
        return (!other.0.is_signed() || other.1).then_some(ULong);
    }
    if a == Long || b == Long {
        return Some(Long);
    }
    if a == UInt || b == UInt {
        let other = if a == UInt { (b, lit_b) } else { (a, lit_a) };
        return Some(if other.0.is_signed() && !other.1 {
            Long
        } else {
            UInt
        });
    }
    Some(Int)
}
