//! rest_for_one: the child that exited and every child started after it are restarted.

#[path = "support/kit.rs"]
mod kit;

use std::time::Duration;

use beam_mcp_supervisors::{Strategy, SupervisorRef, SupervisorSpec};
use kit::*;

async fn abcd(log: Option<Log>) -> SupervisorRef {
    spawn(
        SupervisorSpec::new(Strategy::RestForOne)
            .intensity(10, Duration::from_secs(5))
            .children(
                ["a", "b", "c", "d"].map(|id| logged_worker(id, log.clone(), Duration::ZERO)),
            ),
    )
    .await
}

async fn check_b_and_later_restarted(sup: &SupervisorRef, kill: impl FnOnce(&ractor::ActorCell)) {
    let before = sup.which_children().await.unwrap();
    kill(&cell_of(sup, "b").await);
    eventually("d restarted", || async { restarts(sup, "d").await == 1 }).await;
    let after = sup.which_children().await.unwrap();
    let (was, now) = (actor_ids(&before), actor_ids(&after));
    assert_eq!(now[0], was[0], "a, started before b, untouched");
    for i in 1..4 {
        assert!(now[i].is_some());
        assert_ne!(now[i], was[i], "child {i} restarted");
    }
    let counts: Vec<u32> = after.iter().map(|c| c.restarts).collect();
    assert_eq!(counts, [0, 1, 1, 1]);
    let stats = sup.stats().await.unwrap();
    assert_eq!(stats.restarts, 3);
    assert_eq!(stats.restarts_in_period, 1, "one restart decision");
}

#[tokio::test]
async fn panic_restarts_the_child_and_those_after_it() {
    let sup = abcd(None).await;
    check_b_and_later_restarted(&sup, |b| inject(b, WorkerMsg::Panic)).await;
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn abnormal_stop_restarts_the_child_and_those_after_it() {
    let sup = abcd(None).await;
    check_b_and_later_restarted(&sup, |b| b.stop(Some("boom".into()))).await;
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn later_siblings_are_stopped_last_first() {
    let log = new_log();
    let sup = abcd(Some(log.clone())).await;
    inject(&cell_of(&sup, "b").await, WorkerMsg::Panic);
    eventually("d restarted", || async { restarts(&sup, "d").await == 1 }).await;
    // b panicked, so its post_stop did not run; d then c were stopped, in that order.
    assert_eq!(entries(&log), ["begin:d", "end:d", "begin:c", "end:c"]);
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn failure_of_the_last_child_restarts_only_it() {
    let sup = abcd(None).await;
    let before = sup.which_children().await.unwrap();
    cell_of(&sup, "d").await.stop(Some("boom".into()));
    eventually("d restarted", || async { restarts(&sup, "d").await == 1 }).await;
    let after = sup.which_children().await.unwrap();
    assert_eq!(actor_ids(&after)[..3], actor_ids(&before)[..3]);
    assert_eq!(sup.stats().await.unwrap().restarts, 1);
    sup.stop_gracefully(WAIT).await.unwrap();
}
