//! Restart policies: permanent always, transient after abnormal exits, temporary never.

#[path = "support/kit.rs"]
mod kit;

use beam_mcp_supervisors::{Restart, Strategy, SupervisorRef, SupervisorSpec};
use kit::*;

async fn one(restart: Restart) -> SupervisorRef {
    spawn(
        SupervisorSpec::new(Strategy::OneForOne)
            .child(worker_with("x", restart))
            .child(worker("witness")),
    )
    .await
}

async fn x_is_down(sup: &SupervisorRef) -> bool {
    let children = sup.which_children().await.unwrap();
    children.iter().any(|c| c.id == "x" && c.cell.is_none())
}

async fn x_is_gone(sup: &SupervisorRef) -> bool {
    let children = sup.which_children().await.unwrap();
    !children.iter().any(|c| c.id == "x")
}

#[tokio::test]
async fn transient_child_stopping_normally_is_kept_but_not_restarted() {
    for reason in [
        None,
        Some("normal"),
        Some("shutdown"),
        Some("shutdown: done"),
    ] {
        let sup = one(Restart::Transient).await;
        cell_of(&sup, "x").await.stop(reason.map(str::to_owned));
        eventually("x seen down", || x_is_down(&sup)).await;
        assert_eq!(restarts(&sup, "x").await, 0, "reason {reason:?}");
        let stats = sup.stats().await.unwrap();
        assert_eq!((stats.children, stats.running, stats.restarts), (2, 1, 0));
        sup.stop_gracefully(WAIT).await.unwrap();
    }
}

#[tokio::test]
async fn transient_child_exiting_abnormally_is_restarted() {
    let sup = one(Restart::Transient).await;
    inject(&cell_of(&sup, "x").await, WorkerMsg::Panic);
    eventually("x restarted after panic", || async {
        restarts(&sup, "x").await == 1
    })
    .await;
    cell_of(&sup, "x").await.stop(Some("boom".into()));
    eventually("x restarted after boom", || async {
        restarts(&sup, "x").await == 2
    })
    .await;
    cell_of(&sup, "x").await.kill();
    eventually("x restarted after kill", || async {
        restarts(&sup, "x").await == 3
    })
    .await;
    assert!(cell_of(&sup, "x").await.get_status() == ractor::ActorStatus::Running);
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn temporary_child_is_never_restarted() {
    let kills: [fn(&ractor::ActorCell); 4] = [
        |c| inject(c, WorkerMsg::Panic),
        |c| inject(c, WorkerMsg::Fail),
        |c| c.stop(Some("boom".into())),
        |c| c.stop(None),
    ];
    for kill in kills {
        let sup = one(Restart::Temporary).await;
        let witness = cell_of(&sup, "witness").await.get_id();
        kill(&cell_of(&sup, "x").await);
        eventually("x forgotten", || x_is_gone(&sup)).await;
        let stats = sup.stats().await.unwrap();
        assert_eq!((stats.children, stats.restarts), (1, 0));
        assert_eq!(sup.restart_count("x").await.unwrap(), None);
        assert_eq!(cell_of(&sup, "witness").await.get_id(), witness);
        sup.stop_gracefully(WAIT).await.unwrap();
    }
}

#[tokio::test]
async fn permanent_child_is_restarted_after_any_exit() {
    let sup = one(Restart::Permanent).await;
    cell_of(&sup, "x").await.stop(None);
    eventually("x restarted after normal stop", || async {
        restarts(&sup, "x").await == 1
    })
    .await;
    inject(&cell_of(&sup, "x").await, WorkerMsg::Panic);
    eventually("x restarted after panic", || async {
        restarts(&sup, "x").await == 2
    })
    .await;
    sup.stop_gracefully(WAIT).await.unwrap();
}
