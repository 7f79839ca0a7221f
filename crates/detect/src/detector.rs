//! The engine: every registered recognizer, the context step after them (`context_rules`), the
//! name tagger, the policy's scope, overlap resolution, offsets converted to code points.
//!
//! # Two threads for large texts
//!
//! The finders (every recognizer but the record readers) and the tagger's own tagging read the
//! text alone, never each other's candidates, so for a large text they run as independent jobs
//! on two threads: the calling thread and one of rayon's pool ([`two_threads`]: the caller never
//! waits for the pool thread to start). Both take the next job from one shared counter (the
//! tagger first: it segments the words and looks them up, which PERSON and LOCATION then share;
//! then the finders in registry order), so a thread that is slow to start,
//! or busy with other work, simply leaves more jobs to the other, and a single thread does them
//! all. The heavy finders ([`Recognizer::is_heavy`]: LOCATION, PERSON) are handed out right
//! after the tagger, before the light ones: a long job taken last would leave one thread
//! working alone at the end. Each job keeps its own candidates; they are concatenated
//! in registry order, so the tagger, the record readers and overlap resolution see exactly the
//! sequence of the serial path, and the findings are identical (a unit test compares both paths).
//!
//! Texts shorter than [`PARALLEL_FROM`] bytes stay on the calling thread: a hand-off wakes a
//! pool thread (slow when it sleeps, as between a proxy's requests) and costs a system call, and
//! the proxy's typical request is far smaller. Two threads pay from about half the threshold with
//! a warm pool (`profile_recognizers -- --threads`, benches/RESULTS.md, "two threads"); the
//! threshold is twice that so that a sleeping pool thread's wake-up stays small against the work
//! it can take.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::finding::{Candidate, Finding, DEFAULT_THRESHOLD};
use super::recognizer::Recognizer;
use super::scope::{self, Everything, Scope};
use super::text::Text;
use super::{code, context_rules, registry, resolve, tagger, two_threads};

/// Texts (bytes of the matching view) from this size on run the finders and the tagger on two
/// threads (see the module doc).
pub const PARALLEL_FROM: usize = 16 * 1024;

/// The most candidates [`Detector::try_detect_in`] takes from one text by default: far above
/// what a prompt holds (a 2 MB text of back-to-back 8-byte values), so that it bounds the work
/// of the stages after the finders without refusing real data.
pub const MAX_CANDIDATES: usize = 250_000;

/// Why a text was not detected: the caller must not use the text as if it were anonymized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    /// The finders proposed more candidates than the detector's limit
    /// ([`Detector::with_candidate_limit`]).
    #[error("the text holds more than {limit} candidate values")]
    TooManyCandidates { limit: usize },
}

/// The engine: every registered recognizer, the name tagger, overlap resolution.
pub struct Detector {
    /// The recognizers that read the text alone, in registry order.
    finders: Vec<Box<dyn Recognizer>>,
    /// The record readers ([`Recognizer::reads_candidates`]), in registry order: they run after
    /// the finders and the tagger. Split once here, not per text.
    readers: Vec<Box<dyn Recognizer>>,
    /// Indices into `finders` in the order the two-thread path hands them out: heavy first.
    job_order: Vec<usize>,
    /// Decides unanchored capitalised words ([`tagger::combine`]); `None` runs the rules alone.
    tagger: Option<Arc<tagger::Tagger>>,
    threshold: f32,
    /// Size from which a text is detected on two threads ([`PARALLEL_FROM`]).
    parallel_from: usize,
    /// Candidates per text past which [`Detector::try_detect_in`] refuses ([`MAX_CANDIDATES`]).
    candidate_limit: usize,
}

impl Detector {
    /// All recognizers of [`registry::all`] and the compiled-in tagger, default threshold.
    pub fn new() -> Detector {
        Detector::with_recognizers(registry::all()).with_tagger(Some(tagger::Tagger::shared()))
    }

    /// The given recognizers alone (no tagger), default threshold.
    pub fn with_recognizers(recognizers: Vec<Box<dyn Recognizer>>) -> Detector {
        let (readers, finders): (Vec<_>, Vec<_>) =
            recognizers.into_iter().partition(|r| r.reads_candidates());
        let mut job_order: Vec<usize> = (0..finders.len()).collect();
        // Stable: registry order within the heavy and within the light ones.
        job_order.sort_by_key(|&i| !finders[i].is_heavy());
        // Built here, not by the first text: that request would wait for it.
        context_rules::prepare();
        Detector {
            finders,
            readers,
            job_order,
            tagger: None,
            threshold: DEFAULT_THRESHOLD,
            parallel_from: PARALLEL_FROM,
            candidate_limit: MAX_CANDIDATES,
        }
    }

    /// Replaces the name tagger (`None`: rules only; evaluation trains its own per fold).
    pub fn with_tagger(mut self, tagger: Option<Arc<tagger::Tagger>>) -> Detector {
        self.tagger = tagger;
        self
    }

    /// Texts from `bytes` on are detected on two threads (default [`PARALLEL_FROM`];
    /// `usize::MAX`: always one thread, as the benchmark's single-thread case measures).
    pub fn with_parallel_from(mut self, bytes: usize) -> Detector {
        self.parallel_from = bytes;
        self
    }

    /// Findings sorted by `start`, never overlapping, offsets in code points.
    pub fn detect(&self, input: &str) -> Vec<Finding> {
        self.detect_in(input, &Everything)
    }

    /// [`Detector::detect`] under a policy: `scope` decides which candidates count, adds its
    /// own and names the stretches that are never masked (see [`scope`]).
    /// No limit on candidates: the services call [`Detector::try_detect_in`].
    pub fn detect_in(&self, input: &str, scope: &dyn Scope) -> Vec<Finding> {
        self.detect_within(input, scope, usize::MAX)
            .unwrap_or_default()
    }

    /// Candidates per text past which [`Detector::try_detect_in`] refuses the text.
    pub fn with_candidate_limit(mut self, limit: usize) -> Detector {
        self.candidate_limit = limit;
        self
    }

    /// [`Detector::detect_in`], refusing a text whose candidates exceed the detector's limit
    /// (checked after the finders and the tagger, before the stages that read all candidates).
    pub fn try_detect_in(
        &self,
        input: &str,
        scope: &dyn Scope,
    ) -> Result<Vec<Finding>, DetectError> {
        self.detect_within(input, scope, self.candidate_limit)
    }

    fn detect_within(
        &self,
        input: &str,
        scope: &dyn Scope,
        limit: usize,
    ) -> Result<Vec<Finding>, DetectError> {
        let text = Text::new(input);
        let (mut candidates, tagging) = if text.view().len() >= self.parallel_from {
            self.find_on_two_threads(&text)
        } else {
            let mut candidates = Vec::new();
            for recognizer in &self.finders {
                recognizer.recognize(&text, &mut candidates);
            }
            context_rules::apply(&text, &mut candidates);
            (candidates, self.tag(&text))
        };
        if candidates.len() > limit {
            return Err(DetectError::TooManyCandidates { limit });
        }
        if let Some(tagging) = &tagging {
            tagger::combine::combine(tagging, &text, &mut candidates);
        }
        for recognizer in &self.readers {
            recognizer.recognize(&text, &mut candidates);
        }
        code::read_as_code(&text, &mut candidates);
        scope.propose(&text, &mut candidates);
        candidates
            .retain(|c| c.start < c.end && scope.admits(c.entity_type, c.score, self.threshold));
        let mut allowed = Vec::new();
        scope.allowed(&text, &mut allowed);
        scope::drop_allowed(&mut candidates, &mut allowed);
        let mut accepted = resolve::resolve_overlaps(candidates);
        resolve::one_type_per_value(text.view(), &mut accepted);
        Ok(text.to_findings(accepted))
    }
}

impl Detector {
    fn tag(&self, text: &Text<'_>) -> Option<tagger::Tagging> {
        self.tagger
            .as_deref()
            .and_then(|tagger| tagger::combine::tag(tagger, text))
    }

    /// The finders' candidates in registry order and the tagging, from jobs that the calling
    /// thread and one pool thread take in turn (module doc). Job 0 is the tagger, job `k + 1`
    /// finder `job_order[k]`.
    fn find_on_two_threads(&self, text: &Text<'_>) -> (Vec<Candidate>, Option<tagger::Tagging>) {
        let finders = &self.finders;
        let next = AtomicUsize::new(0);
        let found: Vec<OnceLock<Vec<Candidate>>> =
            finders.iter().map(|_| OnceLock::new()).collect();
        let tagging: OnceLock<Option<tagger::Tagging>> = OnceLock::new();
        let work = || loop {
            let job = next.fetch_add(1, Ordering::Relaxed);

            if job == 0 {
                let _ = tagging.set(self.tag(text));
                continue;
            }
            let Some(&k) = self.job_order.get(job - 1) else {
                break;
            };
            let Some(recognizer) = finders.get(k) else {
                break;
            };
            let mut out = Vec::new();
            recognizer.recognize(text, &mut out);
            context_rules::apply(text, &mut out);
            let _ = found[k].set(out);
        };
        two_threads::run(&work);
        let candidates = found
            .into_iter()
            .flat_map(|f| f.into_inner().unwrap_or_default())
            .collect();
        (candidates, tagging.into_inner().flatten())
    }
}

impl Default for Detector {
    fn default() -> Self {
        Detector::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntityType;

    /// A large text with every kind of value the recognizers and the tagger look for.
    fn large_text() -> String {
        let part = "Sehr geehrte Frau Kowalska, wie besprochen schicke ich Ihnen die Daten von \
            Herrn Dr. Hans-Peter Müller (geb. 12.03.1985), wohnhaft Lindenstraße 12, 50667 Köln. \
            Tel. +49 30 1234567, E-Mail hans.mueller@example.org, IBAN DE89 3704 0044 0532 0130 00, \
            Steuer-ID 86095742719, https://example.org/profil?id=42. Gegen Ribéry wurde ermittelt; \
            Curtiz war schlecht. Ich arbeite in Paris, Wien und Zürich. 42 Baker Street, London NW1 6XE.\n\
            | Name | Ort |\n| Edeltraud Kwiatkowski | Lübbenau |\n{\"telefon\": \"+49 30 1234567\", \
            \"steuer_id\": \"86095742719\", \"password\": \"Sommer2024!x\"}\n";
        let mut s = String::new();
        let mut i = 0;
        while s.len() < 4 * PARALLEL_FROM {
            s.push_str(&part.replace("12", &format!("{}", 10 + i % 80)));
            i += 1;
        }
        s
    }

    #[test]
    fn two_threads_find_what_one_finds() {
        let text = large_text();
        let serial = Detector::new().with_parallel_from(usize::MAX);
        let parallel = Detector::new().with_parallel_from(0);
        let one = serial.detect(&text);
        assert!(one.len() > 100, "{}", one.len());
        for _ in 0..5 {
            assert_eq!(parallel.detect(&text), one);
        }
        // Below the threshold (and for the empty text) both paths agree as well.
        assert_eq!(
            parallel.detect("Frau Kowalska, Tel. 030 1234567"),
            serial.detect("Frau Kowalska, Tel. 030 1234567")
        );
        assert_eq!(parallel.detect(""), Vec::new());
    }

    #[test]
    fn heavy_finders_are_handed_out_first_and_every_finder_once() {
        let d = Detector::new();
        let first: Vec<EntityType> = d.job_order[..2]
            .iter()
            .map(|&i| d.finders[i].entity_type())
            .collect();
        assert_eq!(first, [EntityType::Location, EntityType::Person]);
        let mut all = d.job_order.clone();
        all.sort_unstable();
        assert_eq!(all, (0..d.finders.len()).collect::<Vec<_>>());
    }

    #[test]
    fn past_the_candidate_limit_a_text_is_refused() {
        let text = "Mail an a@example.de, b@example.de und c@example.de.";
        let d = Detector::new();
        let found = d.detect(text);
        assert_eq!(found.len(), 3);
        assert_eq!(d.try_detect_in(text, &Everything), Ok(found.clone()));
        let small = Detector::new().with_candidate_limit(2);
        assert_eq!(
            small.try_detect_in(text, &Everything),
            Err(DetectError::TooManyCandidates { limit: 2 })
        );
        // The unbounded call still finds everything.
        assert_eq!(small.detect(text), found);
    }

    #[test]
    fn typefaces_settings_and_typographic_contractions_are_no_personal_data() {
        let d = Detector::new();
        let text = "Use the fonts listed below: Atkinson Hyperlegible Next, Barlow Condensed, \
            Castoro, Cormorant Garamond, Cossette Texte, Cutive Mono, DM Sans, Young Serif. \
            I\u{2019}ve checked it and I\u{2019}ll report back. \
            {\"reasoning_effort\":\"low\",\"comfort\":\"high\",\"sort\":\"asc\"}";
        let found: Vec<&str> = d
            .detect(text)
            .iter()
            .filter_map(|f| text.get(f.bytes.0..f.bytes.1))
            .collect();
        assert!(found.is_empty(), "{found:?}");
        // An anchor still makes the word a name, and a label a place.
        let text = "Herr Garamond wohnt in Bremen. {\"ort\": \"Guben\"}";
        let found: Vec<&str> = d
            .detect(text)
            .iter()
            .filter_map(|f| text.get(f.bytes.0..f.bytes.1))
            .collect();
        assert!(found.contains(&"Guben"), "{found:?}");
    }
}
