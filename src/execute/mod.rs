//! Executing a reply: the Python code extracted from it, the program built
//! around it, the sandbox that runs it, and the verdict on what it printed.

pub mod extract;
pub mod judge;
pub mod program;
pub mod sandbox;
