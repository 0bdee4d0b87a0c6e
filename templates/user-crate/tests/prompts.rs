//! The evaluation: every prompt x question x round of the suite named in
//! harness.toml is a test case. Run it with `cargo test --test prompts`
//! (add `-- PROMPT` or `-- PROMPT::QUESTION_ID` to run a subset).

fn main() -> std::process::ExitCode {
    prompteval::harness::main()
}
