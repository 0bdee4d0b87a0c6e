//! A scripted model for the spec's example suite (benches-data/example.json:
//! Two Sum, greet, the average of an empty list), and a scratch folder that
//! runs that suite against it: shared by the tests that need a model that
//! passes some questions and fails others.

#![allow(dead_code)]

use crate::prompts_cli::{Scratch, example_suite};
use crate::stub_server::{Behaviour, Request, STUB_MODEL};

/// Solves Two Sum, after some words before the block (extraction must
/// find it).
pub const TWO_SUM: &str = "Here you go:\n```python\ndef two_sum(nums, target):\n    seen = {}\n    for i, n in enumerate(nums):\n        if target - n in seen:\n            return [seen[target - n], i]\n        seen[n] = i\n\nprint(two_sum([2, 7, 11, 15], 9))\n```";
/// Fixes greet's indentation.
pub const GREET: &str = "```python\ndef greet(name):\n    print(f'Hello, {name}!')\n    if name == 'World':\n        print('Welcome to Python!')\n    else:\n        print('Nice to meet you!')\n\ngreet('World')\n```";
/// Fixes the average of an empty list.
pub const AVERAGE: &str = "```python\nprint(0)\n```";
/// Wrong on purpose: crashes on the empty list instead of printing 0.
pub const AVERAGE_WRONG: &str = "```python\ndef calculate_average(numbers):\n    return sum(numbers) / len(numbers)\n\nprint(calculate_average([]))\n```";

/// Solves the example's first two questions and answers the third with
/// `third`, whatever the prompt.
pub fn example_model(third: &'static str) -> impl Fn(&Request) -> Behaviour + Send + Sync {
    move |req: &Request| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        let current = req.current_question();
        Behaviour::Reply(if current.contains("Two Sum") {
            TWO_SUM.into()
        } else if current.contains("greet") {
            GREET.into()
        } else {
            third.into()
        })
    }
}

/// Two of three right: 66.7 % for every prompt.
pub fn two_of_three(req: &Request) -> Behaviour {
    example_model(AVERAGE_WRONG)(req)
}

/// A scratch folder running the example suite against the scripted Ollama
/// (`OLLAMA_HOST` given per run); `extra` adds harness.toml lines.
pub fn example_scratch(extra: &str) -> Scratch {
    Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n{extra}",
        example_suite().display()
    ))
}
