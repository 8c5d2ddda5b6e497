//! Ordered shutdown: children stop one at a time, last started first, each within its
//! shutdown policy.

#[path = "support/kit.rs"]
mod kit;

use std::time::{Duration, Instant};

use beam_mcp_supervisors::{
    Shutdown, StartError, Strategy, Supervisor, SupervisorRef, SupervisorSpec,
};
use kit::*;
use ractor::SpawnErr;

#[tokio::test]
async fn children_stop_in_reverse_start_order_one_at_a_time() {
    let log = new_log();
    let ids = ["a", "b", "c", "d", "e"];
    // A small delay in each post_stop would interleave begin/end pairs if stops overlapped.
    let spec = SupervisorSpec::new(Strategy::OneForOne)
        .children(ids.map(|id| logged_worker(id, Some(log.clone()), Duration::from_millis(10))));
    let (sup, join) = SupervisorRef::spawn(None, spec).await.unwrap();
    let cells: Vec<_> = sup
        .which_children()
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.cell.unwrap())
        .collect();
    sup.stop_gracefully(WAIT).await.unwrap();
    tokio::time::timeout(WAIT, join).await.unwrap().unwrap();

    let expected: Vec<String> = ids
        .iter()
        .rev()
        .flat_map(|id| [format!("begin:{id}"), format!("end:{id}")])
        .collect();
    assert_eq!(entries(&log), expected);
    assert!(cells
        .iter()
        .all(|c| c.get_status() == ractor::ActorStatus::Stopped));
}

#[tokio::test]
async fn child_overrunning_its_timeout_is_killed_and_shutdown_goes_on() {
    let log = new_log();
    let timeout = Duration::from_millis(100);
    let spec = SupervisorSpec::new(Strategy::OneForOne)
        .child(logged_worker("a", Some(log.clone()), Duration::ZERO))
        .child(
            logged_worker("slow", Some(log.clone()), Duration::from_secs(30))
                .shutdown(Shutdown::Timeout(timeout)),
        )
        .child(logged_worker("c", Some(log.clone()), Duration::ZERO));
    let sup = spawn(spec).await;
    let started = Instant::now();
    sup.stop_gracefully(WAIT).await.unwrap();
    let took = started.elapsed();
    assert!(
        took >= timeout,
        "waited the slow child's timeout ({took:?})"
    );
    assert!(
        took < Duration::from_secs(2),
        "did not wait for the slow child ({took:?})"
    );
    // slow began its post_stop, was killed inside it, and a was stopped after it.
    assert_eq!(
        entries(&log),
        ["begin:c", "end:c", "begin:slow", "begin:a", "end:a"]
    );
}

#[tokio::test]
async fn terminate_child_counts_the_kill_of_an_overrunning_child() {
    let log = new_log();
    let sup = spawn(
        SupervisorSpec::new(Strategy::OneForOne)
            .child(
                logged_worker("slow", Some(log.clone()), Duration::from_secs(30))
                    .shutdown(Shutdown::Timeout(Duration::from_millis(50))),
            )
            .child(worker("other")),
    )
    .await;
    let slow = cell_of(&sup, "slow").await;
    sup.terminate_child("slow").await.unwrap();
    assert_eq!(slow.get_status(), ractor::ActorStatus::Stopped);
    assert_eq!(entries(&log), ["begin:slow"]);
    let stats = sup.stats().await.unwrap();
    assert_eq!((stats.kills, stats.children, stats.restarts), (1, 1, 0));
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn brutal_kill_skips_post_stop() {
    let log = new_log();
    let sup = spawn(
        SupervisorSpec::new(Strategy::OneForOne)
            .child(logged_worker("gentle", Some(log.clone()), Duration::ZERO))
            .child(
                logged_worker("brutal", Some(log.clone()), Duration::ZERO)
                    .shutdown(Shutdown::BrutalKill),
            ),
    )
    .await;
    sup.stop_gracefully(WAIT).await.unwrap();
    assert_eq!(entries(&log), ["begin:gentle", "end:gentle"]);
}

#[tokio::test]
async fn nested_supervisor_stops_its_own_children_in_order_within_the_parent_order() {
    let log = new_log();
    let w = |id: &str| logged_worker(id, Some(log.clone()), Duration::from_millis(5));
    let inner = SupervisorSpec::new(Strategy::OneForOne)
        .child(w("x"))
        .child(w("y"));
    let parent = spawn(
        SupervisorSpec::new(Strategy::OneForOne)
            .child(w("a"))
            .child(Supervisor::child_spec("inner", inner))
            .child(w("b")),
    )
    .await;
    parent.stop_gracefully(WAIT).await.unwrap();
    let order: Vec<String> = entries(&log)
        .into_iter()
        .filter_map(|e| e.strip_prefix("end:").map(str::to_owned))
        .collect();
    assert_eq!(order, ["b", "y", "x", "a"]);
}

#[tokio::test]
async fn failed_start_stops_the_children_already_started_in_reverse() {
    let log = new_log();
    let spec = SupervisorSpec::new(Strategy::OneForOne)
        .child(logged_worker("a", Some(log.clone()), Duration::ZERO))
        .child(logged_worker("b", Some(log.clone()), Duration::ZERO))
        .child(failing_child("c"))
        .child(logged_worker("never", Some(log.clone()), Duration::ZERO));
    let err = SupervisorRef::spawn(None, spec).await.unwrap_err();
    let SpawnErr::StartupFailed(inner) = err else {
        panic!("expected a startup failure, got {err}");
    };
    match inner.downcast_ref::<StartError>() {
        Some(StartError::Spawn { id, .. }) => assert_eq!(id, "c"),
        other => panic!("expected StartError::Spawn, got {other:?}"),
    }
    assert_eq!(entries(&log), ["begin:b", "end:b", "begin:a", "end:a"]);
}

#[tokio::test]
async fn duplicate_static_ids_refuse_to_start() {
    let spec = SupervisorSpec::new(Strategy::OneForOne)
        .child(worker("a"))
        .child(worker("a"));
    let err = SupervisorRef::spawn(None, spec).await.unwrap_err();
    let SpawnErr::StartupFailed(inner) = err else {
        panic!("expected a startup failure, got {err}");
    };
    assert!(matches!(
        inner.downcast_ref::<StartError>(),
        Some(StartError::DuplicateId { id }) if id == "a"
    ));
}
