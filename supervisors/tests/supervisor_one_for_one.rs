//! one_for_one: only the child that exited is restarted.

#[path = "support/kit.rs"]
mod kit;

use std::time::Duration;

use beam_mcp_supervisors::{Strategy, SupervisorRef, SupervisorSpec};
use kit::*;

async fn abc() -> SupervisorRef {
    spawn(
        SupervisorSpec::new(Strategy::OneForOne)
            .intensity(10, Duration::from_secs(5))
            .children([worker("a"), worker("b"), worker("c")]),
    )
    .await
}

async fn assert_only_b_restarted(sup: &SupervisorRef, before: &[beam_mcp_supervisors::ChildInfo]) {
    eventually("b restarted", || async { restarts(sup, "b").await == 1 }).await;
    let after = sup.which_children().await.unwrap();
    let (was, now) = (actor_ids(before), actor_ids(&after));
    assert_eq!(now[0], was[0], "a untouched");
    assert_ne!(now[1], was[1], "b is a new actor");
    assert!(now[1].is_some());
    assert_eq!(now[2], was[2], "c untouched");
    assert_eq!(restarts(sup, "a").await, 0);
    assert_eq!(restarts(sup, "c").await, 0);
    let stats = sup.stats().await.unwrap();
    assert_eq!(stats.restarts, 1);
    assert_eq!(stats.restarts_in_period, 1);
    assert_eq!(stats.running, 3);
}

#[tokio::test]
async fn panic_restarts_only_the_panicking_child() {
    let sup = abc().await;
    let before = sup.which_children().await.unwrap();
    inject(&cell_of(&sup, "b").await, WorkerMsg::Panic);
    assert_only_b_restarted(&sup, &before).await;
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn abnormal_stop_restarts_only_that_child() {
    let sup = abc().await;
    let before = sup.which_children().await.unwrap();
    cell_of(&sup, "b").await.stop(Some("boom".into()));
    assert_only_b_restarted(&sup, &before).await;
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn handler_error_restarts_only_that_child() {
    let sup = abc().await;
    let before = sup.which_children().await.unwrap();
    inject(&cell_of(&sup, "b").await, WorkerMsg::Fail);
    assert_only_b_restarted(&sup, &before).await;
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn permanent_child_is_restarted_even_after_a_normal_stop() {
    let sup = abc().await;
    let before = sup.which_children().await.unwrap();
    cell_of(&sup, "b").await.stop(None);
    assert_only_b_restarted(&sup, &before).await;
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn repeated_failures_count_per_child() {
    let sup = abc().await;
    for n in 1..=3 {
        inject(&cell_of(&sup, "c").await, WorkerMsg::Panic);
        eventually("c restarted again", || async {
            restarts(&sup, "c").await == n
        })
        .await;
    }
    cell_of(&sup, "a").await.kill();
    eventually("a restarted after kill", || async {
        restarts(&sup, "a").await == 1
    })
    .await;
    assert_eq!(restarts(&sup, "b").await, 0);
    assert_eq!(sup.stats().await.unwrap().restarts, 4);
    sup.stop_gracefully(WAIT).await.unwrap();
}
