//! The terminal's lines (spec §9's wording, or English).

use super::Language;

/// Both wordings of a line; the run's language picks one.
fn pick(lang: Language, zh: String, en: String) -> String {
    match lang {
        Language::Zh => zh,
        Language::En => en,
    }
}

pub fn starting(lang: Language) -> String {
    pick(
        lang,
        "🚀 LLM Prompt 效能評測系統啟動 (prompteval)".into(),
        "🚀 LLM prompt evaluation starting (prompteval)".into(),
    )
}

pub fn loaded(lang: Language, prompts: usize, questions: usize, suite: &str) -> String {
    pick(
        lang,
        format!("✅ 載入完成: {prompts} 個 Prompts, {questions} 個問題 ({suite})"),
        format!("✅ Loaded: {prompts} prompts, {questions} questions ({suite})"),
    )
}

pub struct Replay<'a> {
    pub why: &'a str,
    pub recorded: usize,
    pub model: &'a str,
    pub dir: &'a str,
    pub origin: &'a str,
}

pub fn replaying(lang: Language, r: &Replay) -> String {
    let Replay {
        why,
        recorded,
        model,
        dir,
        origin,
    } = r;
    pick(
        lang,
        format!(
            "▶ replay 重播 ({why}): {recorded} 個 {model} 的錄製回覆, 來自 {dir} (經由 {origin} 錄製)。改用即時模型: `ollama serve`, 或 scripts/local-llm.sh start 加上 PROMPTEVAL_BACKEND=openai"
        ),
        format!(
            "▶ replay ({why}): {recorded} recorded replies of {model} from {dir} (recorded via {origin}). Go live: `ollama serve`, or scripts/local-llm.sh start and PROMPTEVAL_BACKEND=openai"
        ),
    )
}

pub fn unmatched(lang: Language, missing: usize, selected: usize, lines: &[String]) -> String {
    let lines = lines.join("\n");
    pick(
        lang,
        format!(
            "⚠️  重播: 選取的 {selected} 個案例中有 {missing} 個沒有其確切請求的錄製; 這些案例不評測 (ignored, 不計入任何準確率):\n{lines}"
        ),
        format!(
            "⚠️  replay: {missing} of {selected} selected cases have no recording of their exact request; they are not evaluated (ignored, and in no accuracy):\n{lines}"
        ),
    )
}

pub fn run_folder(lang: Language, dir: &str) -> String {
    pick(
        lang,
        format!("📁 測試結果將儲存至: {dir}"),
        format!("📁 Results go to: {dir}"),
    )
}

pub fn cut_replies(lang: Language, replies: usize, limit: Option<u32>) -> String {
    pick(
        lang,
        format!(
            "✂️  {replies} 個回覆在長度上限{}停止 (finish_reason=length), 依截斷的內容評判: 請提高 harness.toml 的 llm.num_predict (OpenAI 相容伺服器為 max_tokens)",
            limit.map_or_else(String::new, |n| format!(" ({n} tokens) "))
        ),
        format!(
            "✂️  {replies} reply(ies) stopped at the length limit{} (finish_reason=length) and \
             were judged as cut: raise llm.num_predict in harness.toml (max_tokens on \
             OpenAI-compatible servers)",
            limit.map_or_else(String::new, |n| format!(" of {n} tokens"))
        ),
    )
}

pub fn no_answer(lang: Language, cases: usize, limit: Option<u32>) -> String {
    pick(
        lang,
        format!(
            "🧠 {cases} 個案例的 token 預算{}在推理中用盡，沒有答案 (no_answer)：請提高 llm.num_predict，或降低 think",
            limit.map_or_else(String::new, |n| format!(" ({n})"))
        ),
        format!(
            "🧠 {cases} case(s) spent the token budget{} inside the reasoning and gave no \
             answer (no_answer): raise llm.num_predict, or lower think",
            limit.map_or_else(String::new, |n| format!(" of {n} tokens"))
        ),
    )
}

pub fn retrying(lang: Language, errors: usize, later_in_chain: usize) -> String {
    let (later_zh, later_en) = if later_in_chain > 0 {
        (
            format!(", 以及其鏈中之後的 {later_in_chain} 個案例 (它們的歷史隨之改變)"),
            format!(
                ", and {later_in_chain} later case(s) of their chains, whose history changes \
                 with them"
            ),
        )
    } else {
        (String::new(), String::new())
    };
    pick(
        lang,
        format!(
            "🔁 PROMPTEVAL_RETRY=errors: 重新詢問 {errors} 個以 api_error 結束或未評測的案例{later_zh}; 其他案例保留原結果"
        ),
        format!(
            "🔁 PROMPTEVAL_RETRY=errors: asking again for {errors} case(s) that ended in \
             api_error or were not evaluated{later_en}; every other case keeps its outcome"
        ),
    )
}

/// An interrupted write's last journal line: `Some(bytes)` cut, `None`
/// kept and ended.
pub fn torn_journal(lang: Language, journal: &str, cut_bytes: Option<u64>) -> String {
    match cut_bytes {
        Some(bytes) => pick(
            lang,
            format!(
                "✂️  {journal}: 已截去中斷的寫入留下的不完整最後一行 ({bytes} bytes); 該案例重新執行"
            ),
            format!(
                "✂️  {journal}: cut a torn last line ({bytes} bytes of a record an interrupted \
                 write left unfinished); its case runs again"
            ),
        ),
        None => pick(
            lang,
            format!("✂️  {journal}: 最後一筆記錄缺少換行 (寫入被中斷); 已保留並補上換行"),
            format!(
                "✂️  {journal}: the last record lacked its newline (interrupted write); kept it \
                 and ended the line"
            ),
        ),
    }
}

pub fn testing(lang: Language, rounds: u32, cases: usize, already_finished: usize) -> String {
    let (done_zh, done_en) = match already_finished {
        0 => (String::new(), String::new()),
        n => (format!(", {n} 個已完成"), format!(", {n} already finished")),
    };
    pick(
        lang,
        format!("🧪 開始執行測試 (共 {rounds} 輪, {cases} 個測試{done_zh})"),
        format!("🧪 Running the tests ({rounds} round(s), {cases} cases{done_en})"),
    )
}

pub fn reporting(lang: Language) -> String {
    pick(
        lang,
        "\n📊 生成評估報告...".into(),
        "\n📊 Writing the report...".into(),
    )
}

pub fn summary_saved(lang: Language, summary: &str) -> String {
    pick(
        lang,
        format!("📋 會話摘要已儲存: {summary}"),
        format!("📋 Summary saved: {summary}"),
    )
}

pub fn quick_view_written(lang: Language, quick_view: &str) -> String {
    pick(
        lang,
        format!("🌐 快速檢視已生成: {quick_view}"),
        format!("🌐 Quick view written: {quick_view}"),
    )
}

pub fn incomplete(lang: Language, finished: usize, intended: usize, run_dir: &str) -> String {
    pick(
        lang,
        format!(
            "⚠️  執行未完成: {intended} 個案例中完成 {finished} 個; 以 PROMPTEVAL_RESUME={run_dir} 繼續執行"
        ),
        format!(
            "⚠️  Run incomplete: {finished} of {intended} cases finished; finish it with PROMPTEVAL_RESUME={run_dir}"
        ),
    )
}

pub fn cache(lang: Language, hits: usize, calls: usize, dir: &str) -> String {
    pick(
        lang,
        format!(
            "💾 快取 cache: 命中 {hits} 次, 呼叫模型 {calls} 次 ({dir}); PROMPTEVAL_CACHE=off 每次都詢問模型"
        ),
        format!(
            "💾 cache: {hits} hits, {calls} model calls ({dir}); PROMPTEVAL_CACHE=off asks the model every time"
        ),
    )
}

pub fn total_time(lang: Language, secs: f64) -> String {
    pick(
        lang,
        format!("⏱️  總執行時間: {secs:.2} 秒"),
        format!("⏱️  Total time: {secs:.2} s"),
    )
}

/// What insta did with new and changed replies, by its update mode.
pub enum SnapshotFate {
    /// Recorded (INSTA_UPDATE=always or force, named).
    Written(String),
    /// Not written: CI or INSTA_UPDATE=no.
    Held,
    /// Pending files for `cargo insta review`.
    AwaitReview,
}

pub fn snapshots(lang: Language, new: usize, changed: usize, fate: &SnapshotFate) -> String {
    match fate {
        SnapshotFate::Written(mode) => pick(
            lang,
            format!(
                "📸 {new} 個新的、{changed} 個改變的回覆已錄入 snapshots (INSTA_UPDATE={mode})"
            ),
            format!(
                "📸 {new} new and {changed} changed replies recorded into the snapshots (INSTA_UPDATE={mode})"
            ),
        ),
        SnapshotFate::Held => pick(
            lang,
            format!(
                "📸 {new} 個新的、{changed} 個改變的回覆 (未寫入: CI 或 INSTA_UPDATE=no); 請在本機錄製"
            ),
            format!(
                "📸 {new} new and {changed} changed replies (not written: CI or INSTA_UPDATE=no); record them locally"
            ),
        ),
        SnapshotFate::AwaitReview => pick(
            lang,
            format!("📸 {new} 個新的、{changed} 個改變的回覆待審閱: `cargo insta review`"),
            format!(
                "📸 {new} new and {changed} changed replies await review: `cargo insta review`"
            ),
        ),
    }
}

pub fn under_nextest(lang: Language, cases: usize) -> String {
    pick(
        lang,
        format!(
            "prompteval 在 cargo-nextest 下: 本行程執行整個 suite ({cases} 個案例), 如同 `cargo test --test prompts`: 鏈依序帶著歷史執行, 寫出一份報告; 其他測試行程等待各自案例的結果"
        ),
        format!(
            "prompteval under cargo-nextest: this process runs the whole suite ({cases} cases) as `cargo test --test prompts` would, chains in order with their history, and writes one report; the other test processes wait for their case's verdict"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line has both wordings, and they differ: a line left in one
    /// language for both would pass unnoticed otherwise.
    #[test]
    fn every_line_speaks_both_languages() {
        let lines = |l: Language| {
            vec![
                starting(l),
                loaded(l, 3, 4, "s.json"),
                replaying(
                    l,
                    &Replay {
                        why: "no server",
                        recorded: 9,
                        model: "m",
                        dir: "d",
                        origin: "ollama",
                    },
                ),
                unmatched(l, 1, 2, &["x".into()]),
                run_folder(l, "r"),
                cut_replies(l, 1, Some(8)),
                no_answer(l, 1, None),
                retrying(l, 2, 1),
                torn_journal(l, "j", Some(3)),
                torn_journal(l, "j", None),
                testing(l, 1, 9, 2),
                reporting(l),
                summary_saved(l, "s"),
                quick_view_written(l, "q"),
                incomplete(l, 1, 9, "r"),
                cache(l, 1, 2, "c"),
                total_time(l, 1.0),
                snapshots(l, 1, 2, &SnapshotFate::Written("always".into())),
                snapshots(l, 1, 2, &SnapshotFate::Held),
                snapshots(l, 1, 2, &SnapshotFate::AwaitReview),
                under_nextest(l, 9),
            ]
        };
        let has_han = |s: &str| s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
        for (zh, en) in lines(Language::Zh).iter().zip(lines(Language::En)) {
            assert_ne!(*zh, en);
            assert!(has_han(zh), "not Chinese: {zh}");
            assert!(!has_han(&en), "not English: {en}");
        }
    }

    #[test]
    fn the_numbers_stand_in_both_wordings() {
        for l in [Language::Zh, Language::En] {
            let line = incomplete(l, 7, 9, "result/run");
            assert!(line.contains('7') && line.contains('9'), "{line}");
            assert!(line.contains("PROMPTEVAL_RESUME=result/run"), "{line}");
        }
    }
}
