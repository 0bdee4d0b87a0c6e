//! The paper's first gate on p_top (§3.2): "We made sure that generated
//! p_top does not have the complete solution verbatim in the comment."
//!
//! Every variant of a problem is cut from its p_top, so a p_top that quotes
//! the reference shows the model the answer at every detail level. Seen in
//! the committed expansions written by the 1.5B writer: the reference in a
//! fenced code block, whole (HumanEval_20, OpenMP 03_dense_la_axpy) or two
//! thirds of it (OpenMP 31_scan_scan_with_min_function). A p_top is
//! refused when it holds a fenced code block at all (Appendix B asks for a
//! description, and a block is where writers paste code), or when it holds
//! half or more of the reference's code lines anywhere, fenced or not
//! (indented, inline, run into prose). That it names the function, which
//! Appendix B also forbids, is counted and shown but never refused: the
//! paper's gate is about the solution.

/// Why `p_top` is refused, given the question's reference solution and
/// `given`, the prompt the model sees anyway (the benchmark's own: its
/// preamble and signature are kept in every variant, so a reference line
/// that repeats them is no leak); None when it passes.
pub fn refusal(p_top: &str, reference: Option<&str>, given: &str) -> Option<String> {
    if let Some(line) = fence_line(p_top) {
        return Some(format!(
            "it holds a fenced code block (line {line}): a description must not carry code"
        ));
    }
    let reference = reference?;
    let given = normalise(given);
    let lines: Vec<String> = code_lines(reference)
        .into_iter()
        .filter(|l| !given.contains(l.as_str()))
        .collect();
    if lines.is_empty() {
        return None;
    }
    let text = normalise(p_top);
    let quoted = lines.iter().filter(|l| text.contains(l.as_str())).count();
    (quoted * 2 >= lines.len()).then(|| {
        format!(
            "it quotes {quoted} of its reference's {} code lines: the solution is in the description",
            lines.len()
        )
    })
}

/// Whether `p_top` names the function `entry` (Appendix B asks it not to).
pub fn names_function(p_top: &str, entry: &str) -> bool {
    let bytes = p_top.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    p_top.match_indices(entry).any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + entry.len()).copied();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The 1-based line of the first fence (three or more backticks or
/// tildes at a line's start, after indentation).
fn fence_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            l.starts_with("```") || l.starts_with("~~~")
        })
        .map(|i| i + 1)
}

/// The reference's lines that carry code, whitespace-normalised: not
/// blank, not comments, and not so short that prose holds them by chance
/// (`}`, `else:`, `return;`).
fn code_lines(reference: &str) -> Vec<String> {
    reference
        .lines()
        .map(normalise)
        .filter(|l| {
            !l.is_empty()
                && !["#", "//", "/*", "*", "*/"]
                    .iter()
                    .any(|c| l.starts_with(c))
                && l.chars().filter(|c| !c.is_whitespace()).count() >= 8
        })
        .collect()
}

/// Runs of whitespace as one space, trimmed.
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFERENCE: &str = "    closest_pair = None\n    distance = None\n\n    for idx, elem in enumerate(numbers):\n        for idx2, elem2 in enumerate(numbers):\n            if idx != idx2:\n                if distance is None:\n                    distance = abs(elem - elem2)\n    return closest_pair\n";

    #[test]
    fn a_fenced_block_is_refused_wherever_it_is() {
        let p = "The function finds the pair.\n\n    ```python\n    def f(): pass\n    ```\n";
        let why = refusal(p, Some(REFERENCE), "").unwrap();
        assert!(why.contains("fenced code block (line 3)"), "{why}");
        assert!(refusal("~~~\nx\n~~~", None, "").is_some());
    }

    #[test]
    fn half_the_reference_unfenced_is_refused_and_prose_is_not() {
        // Indented, as a docstring would hold it, without a fence.
        let quoted = "It works like this:\n\n        closest_pair = None\n        distance = None\n        for idx, elem in enumerate(numbers):\n        for idx2, elem2 in enumerate(numbers):\n";
        let why = refusal(quoted, Some(REFERENCE), "").unwrap();
        assert!(
            why.contains("quotes 4 of its reference's 8 code lines"),
            "{why}"
        );
        let prose = "The function compares every two numbers of the list, keeps the pair with \
                     the smallest distance, and returns it with the smaller number first.";
        assert_eq!(refusal(prose, Some(REFERENCE), ""), None);
        // Three lines of eight: under half.
        let some = "closest_pair = None, distance = None, and then return closest_pair";
        assert_eq!(refusal(some, Some(REFERENCE), ""), None);
        assert_eq!(refusal(prose, None, ""), None, "nothing to compare with");
    }

    #[test]
    fn short_and_comment_lines_do_not_count() {
        let reference = "// the sum\n}\nelse:\nreturn;\n  total += x[i];\n";
        assert_eq!(code_lines(reference), ["total += x[i];"]);
        assert!(refusal("It does total += x[i]; for each i.", Some(reference), "").is_some());
    }

    /// ParEval's references hold the signature, which every prompt shows:
    /// repeating it is no leak (30_scan_prefix_sum's p_top).
    #[test]
    fn lines_the_prompt_already_shows_are_not_the_solution() {
        let signature =
            "void prefixSum(std::vector<double> const& x, std::vector<double> &output) {";
        let reference = format!(
            "{signature}\n    std::inclusive_scan(x.begin(), x.end(), output.begin());\n}}\n"
        );
        let p_top = format!("It is called as {signature} and sums the prefixes.");
        assert_eq!(refusal(&p_top, Some(&reference), signature), None);
        assert!(refusal(&p_top, Some(&reference), "").is_some());
    }

    #[test]
    fn naming_the_function_is_seen_as_a_word() {
        assert!(names_function("Use `axpy` to add.", "axpy"));
        assert!(names_function("axpy(x, y)", "axpy"));
        assert!(!names_function("saxpy adds", "axpy"));
        assert!(!names_function("axpy_sum adds", "axpy"));
    }
}
