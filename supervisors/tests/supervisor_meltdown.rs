//! Restart intensity: N+1 restarts within the period make a supervisor fail, and the
//! failure escalates to its parent through ractor's links.

#[path = "support/kit.rs"]
mod kit;

use std::time::{Duration, Instant};

use beam_mcp_supervisors::{Strategy, Supervisor, SupervisorRef, SupervisorSpec};
use kit::*;

/// Panics the worker `id` of `sup` `n` times, waiting for each restart, and panics it
/// once more; the supervisor's intensity must be exactly `n`.
async fn melt(sup: &SupervisorRef, id: &str, n: u32) {
    for i in 1..=n {
        inject(&cell_of(sup, id).await, WorkerMsg::Panic);
        eventually("restart within budget", || async {
            restarts(sup, id).await == i
        })
        .await;
    }
    inject(&cell_of(sup, id).await, WorkerMsg::Panic);
}

#[tokio::test]
async fn exceeding_the_intensity_fails_the_supervisor_after_stopping_its_children() {
    let (probe, mut seen) = probe().await;
    let log = new_log();
    let spec = SupervisorSpec::new(Strategy::OneForOne)
        .intensity(2, Duration::from_secs(5))
        .child(logged_worker("first", Some(log.clone()), Duration::ZERO))
        .child(worker("w"))
        .child(logged_worker("last", Some(log.clone()), Duration::ZERO));
    let (sup, join) = SupervisorRef::spawn_linked(None, spec, probe.get_cell())
        .await
        .unwrap();
    let sup_id = sup.cell().get_id();
    melt(&sup, "w", 2).await;

    match next_seen(&mut seen).await {
        Seen::Failed(who, reason) => {
            assert_eq!(who, sup_id);
            assert!(reason.contains("meltdown"), "{reason}");
            assert!(reason.contains("more than 2 restarts"), "{reason}");
            assert!(reason.contains("'w'"), "{reason}");
        }
        other => panic!("expected a failure, saw {other:?}"),
    }
    tokio::time::timeout(WAIT, join).await.unwrap().unwrap();
    // Children were stopped in reverse order before the supervisor failed.
    assert_eq!(
        entries(&log),
        ["begin:last", "end:last", "begin:first", "end:first"]
    );
    probe.stop(None);
}

#[tokio::test]
async fn restarts_spread_beyond_the_period_do_not_melt() {
    let period = Duration::from_millis(150);
    let sup = spawn(
        SupervisorSpec::new(Strategy::OneForOne)
            .intensity(1, period)
            .child(worker("w")),
    )
    .await;
    for i in 1..=3 {
        let at = Instant::now();
        inject(&cell_of(&sup, "w").await, WorkerMsg::Panic);
        eventually("restarted", || async { restarts(&sup, "w").await == i }).await;
        // Let this restart leave the window before the next failure.
        tokio::time::sleep(period.saturating_sub(at.elapsed()) + Duration::from_millis(20)).await;
    }
    let stats = sup.stats().await.unwrap();
    assert_eq!(stats.restarts, 3);
    assert_eq!(stats.restarts_in_period, 0);
    sup.stop_gracefully(WAIT).await.unwrap();
}

fn nested_tree() -> SupervisorSpec {
    let inner = SupervisorSpec::new(Strategy::OneForOne)
        .intensity(2, Duration::from_secs(5))
        .child(worker("w"));
    SupervisorSpec::new(Strategy::OneForOne)
        .intensity(1, Duration::from_secs(5))
        .child(worker("peer"))
        .child(Supervisor::child_spec("inner", inner))
}

async fn inner_of(parent: &SupervisorRef) -> SupervisorRef {
    SupervisorRef::from_cell(cell_of(parent, "inner").await).expect("inner is a supervisor")
}

#[tokio::test]
async fn nested_meltdown_is_restarted_by_the_parent() {
    let parent = spawn(nested_tree()).await;
    let peer = cell_of(&parent, "peer").await.get_id();
    let inner = inner_of(&parent).await;
    let first_inner = inner.cell().get_id();

    melt(&inner, "w", 2).await;
    eventually("parent restarted inner", || async {
        restarts(&parent, "inner").await == 1
    })
    .await;

    let stats = parent.stats().await.unwrap();
    assert_eq!((stats.restarts, stats.running), (1, 2));
    assert_eq!(
        cell_of(&parent, "peer").await.get_id(),
        peer,
        "one_for_one spares peer"
    );
    assert!(inner.stats().await.is_err(), "old inner is gone");
    let inner = inner_of(&parent).await;
    assert_ne!(inner.cell().get_id(), first_inner);
    assert_eq!(restarts(&inner, "w").await, 0, "fresh inner, fresh counts");
    assert_eq!(inner.stats().await.unwrap().restarts, 0);
    parent.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn parent_whose_own_intensity_is_exceeded_fails_too() {
    let (probe, mut seen) = probe().await;
    let (parent, join) = SupervisorRef::spawn_linked(None, nested_tree(), probe.get_cell())
        .await
        .unwrap();
    let parent_id = parent.cell().get_id();

    melt(&inner_of(&parent).await, "w", 2).await;
    eventually("parent restarted inner", || async {
        restarts(&parent, "inner").await == 1
    })
    .await;
    // The parent allows one restart: a second meltdown of inner is one too many.
    melt(&inner_of(&parent).await, "w", 2).await;

    match next_seen(&mut seen).await {
        Seen::Failed(who, reason) => {
            assert_eq!(who, parent_id);
            assert!(reason.contains("more than 1 restarts"), "{reason}");
            assert!(reason.contains("'inner'"), "{reason}");
        }
        other => panic!("expected the parent to fail, saw {other:?}"),
    }
    tokio::time::timeout(WAIT, join).await.unwrap().unwrap();
    assert!(parent.stats().await.is_err());
    probe.stop(None);
}
