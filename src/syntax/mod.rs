//! The C++ front end: source text in, [`FileFacts`] out. Parsing never fails: tree-sitter
//! recovers from errors and the extractor reads around them. Knows nothing of devices beyond
//! aspect names, nor of any protocol.

mod extract;
pub mod facts;
pub mod prepare;

use std::cell::RefCell;

pub use facts::*;

/// File extensions read as C++.
pub const CPP_EXTENSIONS: [&str; 11] = [
    "cpp", "cc", "cxx", "c++", "hpp", "h", "hh", "hxx", "inl", "ipp", "tpp",
];

thread_local! {
    static PARSER: RefCell<tree_sitter::Parser> = RefCell::new({
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_cpp::LANGUAGE.into())
            .expect("tree-sitter-cpp matches the tree-sitter version");
        p
    });
}

/// Extracts the facts of one C++ text.
pub fn extract(text: &str) -> FileFacts {
    let prepared = prepare::prepare(text);
    PARSER.with(|p| {
        let mut parser = p.borrow_mut();
        match parser.parse(&prepared.text, None) {
            Some(tree) => extract::Extractor::run(&prepared, tree.root_node()),
            // Only a cancelled parse returns nothing; there is no cancellation here.
            None => FileFacts::default(),
        }
    })
}

pub use extract::{aspect_ref, normalize};
