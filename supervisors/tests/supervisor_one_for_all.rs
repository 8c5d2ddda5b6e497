//! one_for_all: every child is restarted when one must be.

#[path = "support/kit.rs"]
mod kit;

use std::time::Duration;

use beam_mcp_supervisors::{Restart, Strategy, SupervisorRef, SupervisorSpec};
use kit::*;

async fn abc(log: Option<Log>) -> SupervisorRef {
    spawn(
        SupervisorSpec::new(Strategy::OneForAll)
            .intensity(10, Duration::from_secs(5))
            .children(["a", "b", "c"].map(|id| logged_worker(id, log.clone(), Duration::ZERO))),
    )
    .await
}

async fn check_all_restarted(
    sup: &SupervisorRef,
    round: u32,
    kill: impl FnOnce(&ractor::ActorCell),
) {
    let before = sup.which_children().await.unwrap();
    kill(&cell_of(sup, "b").await);
    eventually("all restarted", || async {
        let children = sup.which_children().await.unwrap();
        children
            .iter()
            .all(|c| c.restarts == round && c.cell.is_some())
    })
    .await;
    let after = sup.which_children().await.unwrap();
    for (was, now) in actor_ids(&before).iter().zip(actor_ids(&after).iter()) {
        assert_ne!(was, now);
    }
    assert_eq!(sup.stats().await.unwrap().restarts, u64::from(3 * round));
}

#[tokio::test]
async fn panic_restarts_every_child() {
    let sup = abc(None).await;
    check_all_restarted(&sup, 1, |b| inject(b, WorkerMsg::Panic)).await;
    check_all_restarted(&sup, 2, |b| inject(b, WorkerMsg::Panic)).await;
    assert_eq!(sup.stats().await.unwrap().restarts_in_period, 2);
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn abnormal_stop_restarts_every_child() {
    let sup = abc(None).await;
    check_all_restarted(&sup, 1, |b| b.stop(Some("boom".into()))).await;
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn siblings_are_stopped_last_first_then_started_in_order() {
    let log = new_log();
    let sup = abc(Some(log.clone())).await;
    let first_a = cell_of(&sup, "a").await.get_id();
    cell_of(&sup, "b").await.stop(Some("boom".into()));
    eventually("all restarted", || async { restarts(&sup, "a").await == 1 }).await;
    // b's own post_stop ran as it stopped itself; then the supervisor stopped c, then a.
    assert_eq!(
        entries(&log),
        ["begin:b", "end:b", "begin:c", "end:c", "begin:a", "end:a"]
    );
    let after = sup.which_children().await.unwrap();
    assert_eq!(child_ids(&after), ["a", "b", "c"]);
    assert_ne!(after[0].cell.as_ref().unwrap().get_id(), first_a);
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn temporary_sibling_is_not_brought_back() {
    let sup = spawn(
        SupervisorSpec::new(Strategy::OneForAll)
            .child(worker("a"))
            .child(worker_with("t", Restart::Temporary))
            .child(worker_with("p", Restart::Transient)),
    )
    .await;
    inject(&cell_of(&sup, "a").await, WorkerMsg::Panic);
    eventually("a restarted", || async { restarts(&sup, "a").await == 1 }).await;
    let after = sup.which_children().await.unwrap();
    assert_eq!(child_ids(&after), ["a", "p"], "temporary t dropped");
    assert_eq!(restarts(&sup, "p").await, 1, "transient sibling restarted");
    sup.stop_gracefully(WAIT).await.unwrap();
}
