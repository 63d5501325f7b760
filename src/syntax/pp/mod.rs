//! A C preprocessor for device code: conditionals evaluated, object- and function-like macros
//! expanded, workspace headers read for their macros. The parser then reads the text the
//! compiler would compile, and every range it reports maps back to the file through
//! [`SourceMap`] (text of a macro's body maps to the macro's use, text of its arguments to
//! itself).
//!
//! What it does not read it tolerates: system and SYCL headers are not in the workspace, so
//! their macros are only the predefined ones the caller passes in; an include it cannot find is
//! no error. Pure: headers come through [`Includes`].
//!
//! - `directives`: directive lines found without preprocessing; `Source`, `Includes`.
//! - `macros`: the macro table and `#define` parsing.
//! - `run`: the entry points; directives applied, `#if` conditions evaluated.
//! - `include`: `#include`, `#pragma once`, remembered headers, headers spliced into code.
//! - `output`: the preprocessed text, its source map, and the walk that builds them.
//! - `lex`, `expand`, `expr`, `scope`, `memo`: tokens, macro expansion, `#if`
//!   expressions, function-body tracking, remembered header readings.

mod directives;
mod expand;
mod expr;
mod include;
pub mod lex;
mod macros;
pub mod memo;
mod output;
mod run;
mod scope;

pub use directives::{
    directive_fingerprint, directives, DirKind, Directive, Includes, NoIncludes, Source,
};
pub use macros::{parse_define, MTok, Macro, MacroAt, MacroDef, MacroTable, Macros, Origin};
pub use output::{Expansion, Preprocessed, SourceMap};
pub use run::{macros_at, macros_before, preprocess};

#[cfg(test)]
mod tests;
