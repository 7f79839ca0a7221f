//! Overlap resolution (docs/entities.md §1.7): containers first, then a greedy pass in order of
//! validated → score → length → type priority → start.
//!
//! Decision for SECRET: a URL that holds a SECRET candidate (`https://user:pw@host/`,
//! `…?token=…`) is masked whole as one SECRET, not as a URL with a secret cut out of it or
//! split around it: the value never leaves in part, the reply gets one token, and a policy that
//! blocks SECRET sees it. An "e-mail address" holding a SECRET is the `password@host` of a
//! connection string and is dropped. Where no URL surrounds it (a `postgres://user:pw@host`
//! connection string is not a web URL) the SECRET stays as found: the password only.

use std::cmp::Reverse;

use ahash::AHashMap;

use super::{Candidate, EntityType};

/// Returns non-overlapping candidates sorted by `start`.
pub fn resolve_overlaps(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    let carriers = secret_carriers(&candidates);
    if !carriers.is_empty() {
        // The `@` of `user:password@host` is no e-mail address.
        candidates.retain(|c| {
            c.entity_type != EntityType::EmailAddress
                || !carriers.iter().any(|&(a, e, _)| (a, e) == (c.start, c.end))
        });
    }
    absorb_into_containers(&mut candidates);
    for c in &mut candidates {
        if c.entity_type != EntityType::Url {
            continue;
        }
        if let Some(&(_, _, score)) = carriers
            .iter()
            .find(|&&(a, e, _)| (a, e) == (c.start, c.end))
        {
            c.entity_type = EntityType::Secret;
            c.score = c.score.max(score);
        }
    }
    match packed_order(&candidates) {
        Some(keys) => by_clusters(&candidates, &keys),
        None => in_one_pass(candidates),
    }
}

/// The greedy pass's order as a tuple, for candidates whose [`packed_order`] does not fit.
fn tuple_order(c: &Candidate) -> impl Ord {
    (
        Reverse(c.validated),
        Reverse(total_order(c.score)),
        Reverse(c.end - c.start),
        Reverse(c.entity_type.priority()),
        c.start,
    )
}

/// [`greedy`] over all candidates at once in [`tuple_order`] (stable), in text order.
fn in_one_pass(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    candidates.sort_by_cached_key(tuple_order);
    let mut accepted = greedy(candidates.iter(), 0);
    accepted.sort_unstable_by_key(|c| c.start);
    accepted
}

/// The greedy pass over `ordered` (best first): a candidate is accepted when none of its bytes
/// is taken yet (one flag per byte from `from` on; linear in the total length of the
/// candidates).
fn greedy<'c>(ordered: impl Iterator<Item = &'c Candidate> + Clone, from: usize) -> Vec<Candidate> {
    let len = ordered.clone().map(|c| c.end).max().unwrap_or(0);
    let mut taken = vec![false; len.saturating_sub(from)];
    let mut accepted = Vec::new();
    for c in ordered {
        let (Some(a), Some(b)) = (c.start.checked_sub(from), c.end.checked_sub(from)) else {
            continue;
        };
        let Some(span) = taken.get_mut(a..b) else {
            continue;
        };
        if span.iter().any(|&t| t) {
            continue;
        }
        span.fill(true);
        accepted.push(*c);
    }
    accepted
}

/// [`greedy`] in the order of `keys` ([`packed_order`]), run per cluster of overlapping
/// candidates: whether a candidate is accepted depends only on the candidates it overlaps, so
/// each cluster alone gives what one pass over all gives. The candidates are put in text order
/// (each recognizer reports in text order, so the sort merges runs) and a cluster ends where the
/// next candidate starts at or after the end of all before it. Most clusters are one candidate;
/// sorting a few small ones costs less than sorting all keys (on a table of 100 000 code points,
/// 25 000 candidates). Accepted spans are disjoint and non-empty, so text order is by start.
fn by_clusters(candidates: &[Candidate], keys: &[u128]) -> Vec<Candidate> {
    // The low bits of a key are start and index: text order, ties in input order.
    const START_AND_INDEX: u128 = (1 << (32 + INDEX_BITS)) - 1;
    let mut in_text_order: Vec<u64> = keys.iter().map(|&k| (k & START_AND_INDEX) as u64).collect();
    in_text_order.sort();
    let mut accepted = Vec::with_capacity(candidates.len());
    let mut cluster: Vec<u128> = Vec::new();
    let (mut from, mut reach) = (0, 0);
    let index = |k: u64| (u128::from(k) & INDEX_MASK) as usize;
    for &k in &in_text_order {
        let (Some(c), Some(&key)) = (candidates.get(index(k)), keys.get(index(k))) else {
            continue;
        };
        if c.start >= reach {
            settle(candidates, &mut cluster, from, &mut accepted);
            from = c.start;
        }
        cluster.push(key);
        reach = reach.max(c.end);
    }
    settle(candidates, &mut cluster, from, &mut accepted);
    accepted
}

/// Appends what [`greedy`] accepts of one cluster (its keys, starting at byte `from`) to
/// `accepted` in text order, and empties the cluster.
fn settle(
    candidates: &[Candidate],
    cluster: &mut Vec<u128>,
    from: usize,
    accepted: &mut Vec<Candidate>,
) {
    let member = |k: &u128| candidates.get((k & INDEX_MASK) as usize);
    match cluster.as_slice() {
        [] => {}
        [one] => accepted.extend(member(one)),
        _ => {
            cluster.sort_unstable();
            let mut won = greedy(cluster.iter().filter_map(member), from);
            won.sort_unstable_by_key(|c| c.start);
            accepted.extend(won);
        }
    }
    cluster.clear();
}

/// Bits of [`packed_order`]'s keys that hold the candidate's index.
const INDEX_BITS: u32 = 23;
const INDEX_MASK: u128 = (1 << INDEX_BITS) - 1;

/// The greedy pass's order as one integer per candidate, ascending: validated first, then the
/// higher score, the longer span, the higher type priority, the earlier start, and last the
/// candidate's index (so an unstable sort keeps equal candidates in order, as a stable one
/// would). From the top bit down: not validated (1), score (32), length (32), priority (8), start
/// (32), index (23); the reversed fields are stored complemented. `None` when a field does not
/// fit (texts of 4 GiB, millions of candidates, an inverted span): the tuple sort decides then.
fn packed_order(candidates: &[Candidate]) -> Option<Vec<u128>> {
    if candidates.len() > INDEX_MASK as usize {
        return None;
    }
    let mut keys = Vec::with_capacity(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        let len = u32::try_from(c.end.checked_sub(c.start)?).ok()?;
        let start = u32::try_from(c.start).ok()?;
        // the i32 order as an unsigned one
        let score = (total_order(c.score) as u32) ^ 0x8000_0000;
        keys.push(
            u128::from(!c.validated) << 127
                | u128::from(!score) << 95
                | u128::from(!len) << 63
                | u128::from(!c.entity_type.priority()) << 55
                | u128::from(start) << INDEX_BITS
                | i as u128,
        );
    }
    Some(keys)
}

/// `x` as an integer that orders like [`f32::total_cmp`].
fn total_order(x: f32) -> i32 {
    let bits = x.to_bits() as i32;
    bits ^ (((bits >> 31) as u32) >> 1) as i32
}

/// One value, one type: when the same word value was accepted as PERSON in one place and as
/// LOCATION in another (`Turan`), every occurrence takes the type of its best-scored finding
/// (validated first, then score, then the type priority of §1.7, LOCATION before PERSON), so
/// that the value gets one token. `view` is the text the candidates' offsets point into.
pub fn one_type_per_value(view: &str, accepted: &mut [Candidate]) {
    let has = |t: EntityType| accepted.iter().any(|c| c.entity_type == t);
    if !has(EntityType::Person) || !has(EntityType::Location) {
        return;
    }
    let words = |c: &Candidate| matches!(c.entity_type, EntityType::Person | EntityType::Location);
    let rank = |c: &Candidate| (c.validated, c.score, c.entity_type.priority());
    let mut best: AHashMap<&str, Candidate> = AHashMap::new();
    for c in accepted.iter().filter(|c| words(c)) {
        let Some(value) = view.get(c.start..c.end) else {
            continue;
        };
        let b = best.entry(value).or_insert(*c);
        if rank(c) > rank(b) {
            *b = *c;
        }
    }
    for c in accepted.iter_mut().filter(|c| words(c)) {
        if let Some(b) = view.get(c.start..c.end).and_then(|v| best.get(v)) {
            c.entity_type = b.entity_type;
        }
    }
}

fn is_container(c: &Candidate) -> bool {
    matches!(c.entity_type, EntityType::Url | EntityType::EmailAddress)
}

/// Spans of the containers that hold a SECRET candidate completely, with the best score of
/// the secrets inside (few: secrets are rare).
fn secret_carriers(candidates: &[Candidate]) -> Vec<(usize, usize, f32)> {
    let secrets: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.entity_type == EntityType::Secret)
        .collect();
    if secrets.is_empty() {
        return Vec::new();
    }
    candidates
        .iter()
        .filter(|c| is_container(c))
        .filter_map(|c| {
            secrets
                .iter()
                .filter(|x| c.start <= x.start && x.end <= c.end)
                .map(|x| x.score)
                .reduce(f32::max)
                .map(|score| (c.start, c.end, score))
        })
        .collect()
}

/// URLs and e-mail addresses swallow every candidate that lies completely inside them.
fn absorb_into_containers(candidates: &mut Vec<Candidate>) {
    let mut containers: Vec<(usize, usize)> = candidates
        .iter()
        .filter(|c| is_container(c))
        .map(|c| (c.start, c.end))
        .collect();
    if containers.is_empty() {
        return;
    }
    // Sorted by start, with the largest end so far: a candidate lies inside some container
    // exactly when a container starting at or before it reaches at least its end.
    containers.sort_unstable();
    let mut reach = Vec::with_capacity(containers.len());
    let mut max_end = 0;
    for &(_, end) in &containers {
        max_end = max_end.max(end);
        reach.push(max_end);
    }
    candidates.retain(|c| {
        if is_container(c) {
            return true;
        }
        let before = containers.partition_point(|&(start, _)| start <= c.start);
        before == 0 || reach[before - 1] < c.end
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::finding::cand;

    #[test]
    fn total_order_orders_like_total_cmp() {
        let xs = [
            f32::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-40,
            0.5,
            0.85,
            1.0,
            f32::INFINITY,
            f32::NAN,
            -f32::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(
                    total_order(a).cmp(&total_order(b)),
                    a.total_cmp(&b),
                    "{a} {b}"
                );
            }
        }
    }

    #[test]
    fn packed_order_is_the_tuple_order() {
        let types = [
            EntityType::Person,
            EntityType::Location,
            EntityType::Url,
            EntityType::EmailAddress,
            EntityType::Date,
        ];
        let scores = [0.5, 0.9, 0.85, 1.0, -0.0, 0.0, 0.9];
        let mut cs = Vec::new();
        for k in 0..300usize {
            let start = (k * 7) % 23;
            let len = 1 + (k * 5) % 9;
            cs.push(cand(
                types[k % types.len()],
                start,
                start + len,
                scores[k % scores.len()],
                k % 11 == 0,
            ));
        }
        let mut by_tuple = cs.clone();
        by_tuple.sort_by_cached_key(tuple_order);
        let mut keys = packed_order(&cs).expect("fits");
        keys.sort_unstable();
        let by_key: Vec<Candidate> = keys
            .iter()
            .map(|&k| cs[(k & INDEX_MASK) as usize])
            .collect();
        assert_eq!(by_key, by_tuple);
        // an inverted span does not fit: the tuple sort decides
        assert!(packed_order(&[cand(EntityType::Date, 5, 3, 0.9, false)]).is_none());
    }

    #[test]
    fn validated_beats_longer_pattern_only() {
        let out = resolve_overlaps(vec![
            cand(EntityType::PhoneNumber, 0, 30, 0.9, false),
            cand(EntityType::Iban, 5, 27, 0.8, true),
        ]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].entity_type, EntityType::Iban);
    }

    #[test]
    fn container_absorbs_inner_candidates() {
        let out = resolve_overlaps(vec![
            cand(EntityType::IpAddress, 7, 15, 0.95, false),
            cand(EntityType::Url, 0, 20, 0.6, false),
        ]);
        assert_eq!(out, vec![cand(EntityType::Url, 0, 20, 0.6, false)]);
    }

    #[test]
    fn containment_is_checked_against_every_earlier_container() {
        // The nearest container (10..12) does not hold 11..18, the wider one before it does.
        let mut c = vec![
            cand(EntityType::Url, 0, 20, 0.6, false),
            cand(EntityType::EmailAddress, 10, 12, 0.9, false),
            cand(EntityType::IpAddress, 11, 18, 0.95, false),
            cand(EntityType::Date, 15, 25, 0.95, false),
            cand(EntityType::Date, 30, 35, 0.95, false),
        ];
        absorb_into_containers(&mut c);
        let kept: Vec<(usize, usize)> = c.iter().map(|c| (c.start, c.end)).collect();
        assert_eq!(kept, vec![(0, 20), (10, 12), (15, 25), (30, 35)]);
    }

    #[test]
    fn one_value_takes_one_type() {
        let view = "Turan aus Turan, Anna";
        let mut c = vec![
            cand(EntityType::Person, 0, 5, 0.9, false),
            cand(EntityType::Location, 10, 15, 0.7, false),
            cand(EntityType::Person, 17, 21, 0.6, false),
        ];
        one_type_per_value(view, &mut c);
        let types: Vec<EntityType> = c.iter().map(|c| c.entity_type).collect();
        assert_eq!(
            types,
            vec![EntityType::Person, EntityType::Person, EntityType::Person]
        );
        // A tie goes to LOCATION, whatever the order.
        let mut c = vec![
            cand(EntityType::Person, 0, 5, 0.7, false),
            cand(EntityType::Location, 10, 15, 0.7, false),
        ];
        one_type_per_value(view, &mut c);
        assert!(c.iter().all(|c| c.entity_type == EntityType::Location));
    }

    #[test]
    fn a_url_holding_a_secret_becomes_one_secret() {
        let out = resolve_overlaps(vec![
            cand(EntityType::Url, 0, 40, 0.75, false),
            cand(EntityType::Secret, 12, 20, 0.9, false),
            cand(EntityType::IpAddress, 21, 30, 0.95, false),
            cand(EntityType::Secret, 50, 60, 0.85, false),
        ]);
        assert_eq!(
            out,
            vec![
                cand(EntityType::Secret, 0, 40, 0.9, false),
                cand(EntityType::Secret, 50, 60, 0.85, false),
            ]
        );
        // An e-mail candidate around a secret is the `password@host` of a connection string.
        let dsn = resolve_overlaps(vec![
            cand(EntityType::EmailAddress, 10, 30, 0.95, false),
            cand(EntityType::Secret, 10, 18, 0.9, false),
        ]);
        assert_eq!(dsn, vec![cand(EntityType::Secret, 10, 18, 0.9, false)]);
        // Without a secret inside, the URL stays a URL.
        let plain = resolve_overlaps(vec![cand(EntityType::Url, 0, 40, 0.75, false)]);
        assert_eq!(plain[0].entity_type, EntityType::Url);
    }

    proptest::proptest! {
        #[test]
        fn clusters_accept_what_one_pass_accepts(
            spans in proptest::collection::vec((0usize..300, 1usize..40, 0usize..5, 0usize..4, proptest::bool::weighted(0.1)), 0..120)
        ) {
            let types = [EntityType::Person, EntityType::Location, EntityType::Date, EntityType::PhoneNumber, EntityType::Iban];
            let scores = [0.5, 0.75, 0.8, 0.9];
            let candidates: Vec<Candidate> = spans
                .iter()
                .map(|&(start, len, t, s, v)| cand(types[t], start, start + len, scores[s], v))
                .collect();
            let keys = packed_order(&candidates).expect("small spans fit");
            proptest::prop_assert_eq!(by_clusters(&candidates, &keys), in_one_pass(candidates));
        }
    }

    #[test]
    fn output_sorted_and_disjoint() {
        let out = resolve_overlaps(vec![
            cand(EntityType::Date, 20, 30, 0.7, false),
            cand(EntityType::Person, 0, 5, 0.7, false),
            cand(EntityType::Location, 25, 35, 0.6, false),
        ]);
        assert_eq!(out.len(), 2);
        assert!(out[0].end <= out[1].start);
    }
}
