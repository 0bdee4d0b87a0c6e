//! The evaluation: every prompt x question x round of the configured suite is
//! a test case. Run with `cargo test --test prompts [-- FILTER]`.

fn main() -> std::process::ExitCode {
    prompteval::harness::main()
}
