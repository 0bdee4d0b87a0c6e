//! The paper's taxonomy of prompt details (PartialOrderEval, Appendix F):
//! 20 themes in four categories, and the labeling prompt it used
//! (Appendix D.2), kept word for word.

/// One theme: its code (`1.3`), its name and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub code: &'static str,
    pub name: &'static str,
    pub meaning: &'static str,
}

macro_rules! themes {
    ($(($code:literal, $name:literal, $meaning:literal)),* $(,)?) => {
        /// Every theme, in the taxonomy's order.
        pub const THEMES: &[Theme] = &[$(Theme { code: $code, name: $name, meaning: $meaning }),*];
    };
}

themes![
    (
        "1.1",
        "Task Goal",
        "One-sentence statement of the required outcome."
    ),
    (
        "1.2",
        "Scope & Assumptions",
        "Preconditions or problem constraints (e.g., \"input list is sorted\")."
    ),
    (
        "1.3",
        "Input Specification",
        "Types, structures, and constraints on inputs (e.g., \"n <= 10^5, non-negative integers\")."
    ),
    (
        "1.4",
        "Output Specification",
        "Return type and format of the output (e.g., \"boolean value, list of strings\")."
    ),
    (
        "1.5",
        "Core Behaviour",
        "Essential functional steps the code must perform, usually mapped to a problem domain."
    ),
    (
        "2.1",
        "Complexity Targets",
        "Desired time and space complexity (e.g., \"<= O(n log n)\", \"in-place\")."
    ),
    (
        "2.2",
        "Environment Constraints",
        "Platform, language, or hardware requirements (e.g., \"no recursion due to stack limit\")."
    ),
    (
        "2.3",
        "Edge Case Handling",
        "Explicit mention of inputs like empty arrays, max values, or special formats."
    ),
    (
        "2.4",
        "Error Handling",
        "Required exception behavior, validation, or fallback logic."
    ),
    (
        "2.5",
        "Data Invariants",
        "Conditions that must hold true before/after execution (e.g., \"list remains sorted\")."
    ),
    (
        "3.1",
        "Specifying Algorithmic Strategy",
        "Recommends a general technique (e.g., brute-force, recursion, DP, greedy)."
    ),
    (
        "3.2",
        "Specifying Data Structure",
        "Recommends a structure (e.g., array, set, tree, heap) to enable efficient access."
    ),
    (
        "3.3",
        "Forbidden Techniques",
        "Prohibits certain APIs, heuristics, or styles (e.g., \"don't use sorting\")."
    ),
    (
        "3.4",
        "Implementation Sketch or Step Breakdown",
        "Provides a sequence of logical steps or pseudocode."
    ),
    (
        "3.5",
        "Common Implementation Patterns",
        "Highlights structural motifs (e.g., prefix sum, two-pointer, hash map)."
    ),
    (
        "3.6",
        "Role or Persona Framing",
        "Adopts a tone or style based on audience (e.g., \"explain like I'm a beginner\")."
    ),
    (
        "4.1",
        "Sample I/O Pairs",
        "Concrete examples showing expected outputs for given inputs."
    ),
    (
        "4.2",
        "Unit Tests or Oracle Checks",
        "Lists or refers to test cases that must pass."
    ),
    (
        "4.3",
        "Integration Context",
        "Describes where/how the code will be called or embedded."
    ),
    (
        "4.4",
        "Dependencies",
        "External libraries, packages, or imports required (e.g., \"uses `collections.Counter`\")."
    ),
];

/// The four categories: (number, name, what they cover).
pub const CATEGORIES: [(&str, &str, &str); 4] = [
    (
        "1",
        "Functional Specification",
        "Describes what the code must do and the exact data it consumes and produces.",
    ),
    (
        "2",
        "Constraints & Robustness",
        "Sets performance and correctness boundaries for safe, efficient behavior.",
    ),
    (
        "3",
        "Solution Structure & Design Guidance",
        "Guides how the solution should be implemented or structured.",
    ),
    (
        "4",
        "Verification & Integration",
        "Specifies how correctness is tested and how the code fits into a larger system.",
    ),
];

/// The five themes the paper saw grow with detail: what `[variants.themes]
/// ablate` takes out of p_top by default.
pub const GROWING: [&str; 5] = ["1.3", "1.4", "1.5", "2.3", "3.4"];

/// The theme of a code (`2.3`).
pub fn by_code(code: &str) -> Option<&'static Theme> {
    THEMES.iter().find(|t| t.code == code)
}

/// `2.3 Edge Case Handling`, as the paper's prompt names a theme.
pub fn label(code: &str) -> String {
    match by_code(code) {
        Some(t) => format!("{} {}", t.code, t.name),
        None => code.to_string(),
    }
}

/// The theme a labeler's entry names: `1.1`, `1.1 Task Goal`,
/// `1.1 - Task Goal` or `Task Goal` (case and spacing aside). A code with
/// another theme's name is no theme: the entry contradicts itself.
pub fn parse_entry(entry: &str) -> Option<&'static Theme> {
    let entry = entry.trim().trim_matches(|c| c == '*' || c == '"');
    let normal = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let code_len = entry
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(entry.len());
    let (code, rest) = entry.split_at(code_len);
    let code = code.trim_end_matches('.');
    if code.is_empty() {
        let name = normal(entry);
        return THEMES.iter().find(|t| normal(t.name) == name);
    }
    let theme = by_code(code)?;
    let rest = rest.trim_start_matches([' ', '-', ':', '–']).trim();
    (rest.is_empty() || normal(rest) == normal(theme.name)).then_some(theme)
}

/// The paper's labeling prompt (Appendix D.2), the system prompt of every
/// labeling request, word for word.
pub fn labeling_system() -> String {
    let mut out = String::from(
        "The following series of prompts are for the same problem but at different word limits. For each prompt, summarize what information is included in the prompt by assigning a code from the list below to the information that is included.\n\
Use the list of taxonomies below to guide your analysis. You should only report the information that is included in the prompt using the second-level taxonomies. For example, if the prompt includes \"1.1 Task Goal\" and \"1.2 Scope & Assumptions\", you should report \"1.1 Task Goal\" and \"1.2 Scope & Assumptions\".\n\
Report your findings in a json file. e.g.:\n\
```json\n[\n{\n\"prompt\": \"<fill the prompt here>\",\n\"word_limit\": 10,\n\"taxonomies\": [ \"1.1 Task Goal\", ... ]\n},\n...\n]\n```\n\
## List of taxonomies\n",
    );
    for (number, name, covers) in CATEGORIES {
        out.push_str(&format!("### {number}. {name}\n*{covers}*\n"));
        for t in THEMES
            .iter()
            .filter(|t| t.code.starts_with(&format!("{number}.")))
        {
            out.push_str(&format!("* {} {} - {}\n", t.code, t.name, t.meaning));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_taxonomy_has_the_papers_twenty_themes_in_four_categories() {
        assert_eq!(THEMES.len(), 20);
        for (number, _, _) in CATEGORIES {
            assert!(THEMES.iter().any(|t| t.code.starts_with(number)));
        }
        assert!(GROWING.iter().all(|c| by_code(c).is_some()));
        let prompt = labeling_system();
        assert!(prompt.contains("* 3.4 Implementation Sketch or Step Breakdown - Provides a sequence of logical steps or pseudocode.\n"));
        assert!(prompt.starts_with("The following series of prompts are for the same problem"));
        assert!(prompt.contains("### 4. Verification & Integration\n*Specifies how"));
    }

    #[test]
    fn an_entry_is_a_code_a_name_or_both_when_they_agree() {
        assert_eq!(parse_entry("1.1").unwrap().name, "Task Goal");
        assert_eq!(parse_entry("1.1 Task Goal").unwrap().code, "1.1");
        assert_eq!(
            parse_entry("2.3 - edge case  handling").unwrap().code,
            "2.3"
        );
        assert_eq!(parse_entry("Scope & Assumptions").unwrap().code, "1.2");
        assert_eq!(parse_entry("1.7 Something"), None);
        assert_eq!(
            parse_entry("1.1 Core Behaviour"),
            None,
            "a code with another's name"
        );
        assert_eq!(parse_entry("5.1"), None);
        assert_eq!(parse_entry("Elegance"), None);
        assert_eq!(parse_entry("1"), None);
    }
}
