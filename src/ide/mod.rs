//! Editor features as domain data, no LSP types: hover text and the order its answers are tried
//! in, completions, inlay-hint values, fixes as byte-range edits, code-lens lines and inactive
//! lines. `lsp` converts them and positions, and schedules the work.

mod answers;
pub mod completion;
pub mod fixes;
pub mod host;
pub mod hover;
pub mod inactive;
pub mod inlay_hints;
pub mod lens;

pub use answers::{KernelLens, Position};
pub use completion::{cpp_completions, yaml_completions, Completion, CompletionKind};
pub use fixes::{add_aspect, float_suffix, Edit, Fix};
pub use host::{Analysis, AnalysisConfig, AnalysisHost, Cancelled, Change};
pub use hover::{
    aspect_hover, function_at, function_hover, hover, in_conditional, macro_hover,
    macro_value_hover, target_hover, word_at, yaml_key_hover, HoverAnswer, HoverQuery, HoverText,
    MacroValue,
};
pub use inlay_hints::trait_hints;
pub use lens::kernel_lens;

/// A test fixture's text without its cursor marker `$0`, and the cursor's offset.
#[cfg(test)]
fn cursor(fixture: &str) -> (String, usize) {
    assert_eq!(
        fixture.matches("$0").count(),
        1,
        "one `$0` marks the cursor"
    );
    let offset = fixture.find("$0").unwrap_or_default();
    (fixture.replacen("$0", "", 1), offset)
}
