//! Dynamic children: started and terminated at run time, typically temporary ones, one
//! per connection.

#[path = "support/kit.rs"]
mod kit;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use beam_mcp_supervisors::{
    ChildSpec, Restart, StartChildError, StartError, Strategy, SupervisorSpec, TerminateChildError,
};
use kit::*;
use ractor::Actor;

#[tokio::test]
async fn hundred_temporary_children_die_and_none_is_restarted() {
    let sup =
        spawn(SupervisorSpec::new(Strategy::OneForOne).intensity(1, Duration::from_secs(5))).await;
    let started = Instant::now();
    for i in 0..100 {
        let cell = sup
            .start_child(worker_with(&format!("conn-{i}"), Restart::Temporary))
            .await
            .unwrap();
        assert_eq!(cell.get_status(), ractor::ActorStatus::Running);
    }
    let took = started.elapsed();
    eprintln!("started 100 temporary children in {took:?}");
    let before = sup.which_children().await.unwrap();
    assert_eq!(before.len(), 100);

    // 30 die: panics, handler errors, abnormal and normal stops. The intensity (1)
    // would melt the supervisor on the second restart, were any attempted.
    let mut dead = HashSet::new();
    for (n, child) in before.iter().enumerate().filter(|(n, _)| n % 10 < 3) {
        let cell = child.cell.as_ref().unwrap();
        match n % 4 {
            0 => inject(cell, WorkerMsg::Panic),
            1 => inject(cell, WorkerMsg::Fail),
            2 => cell.stop(Some("boom".into())),
            _ => cell.stop(None),
        }
        dead.insert(child.id.clone());
    }
    assert_eq!(dead.len(), 30);
    eventually("which_children shrinks to 70", || async {
        sup.which_children().await.unwrap().len() == 70
    })
    .await;

    let after = sup.which_children().await.unwrap();
    assert!(after.iter().all(|c| !dead.contains(&c.id)));
    let survivors: Vec<_> = before.iter().filter(|c| !dead.contains(&c.id)).collect();
    assert_eq!(
        actor_ids(&after),
        survivors
            .iter()
            .map(|c| c.cell.as_ref().map(|c| c.get_id()))
            .collect::<Vec<_>>(),
        "survivors untouched, order kept"
    );
    let stats = sup.stats().await.unwrap();
    assert_eq!(
        (stats.restarts, stats.restarts_in_period, stats.running),
        (0, 0, 70)
    );
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn dynamic_children_come_after_static_ones_and_stop_first() {
    let log = new_log();
    let sup = spawn(
        SupervisorSpec::new(Strategy::OneForOne).child(logged_worker(
            "static",
            Some(log.clone()),
            Duration::ZERO,
        )),
    )
    .await;
    for id in ["d1", "d2"] {
        sup.start_child(
            logged_worker(id, Some(log.clone()), Duration::ZERO).restart(Restart::Temporary),
        )
        .await
        .unwrap();
    }
    assert_eq!(
        child_ids(&sup.which_children().await.unwrap()),
        ["static", "d1", "d2"]
    );
    sup.stop_gracefully(WAIT).await.unwrap();
    let ends: Vec<String> = entries(&log)
        .into_iter()
        .filter(|e| e.starts_with("end:"))
        .collect();
    assert_eq!(ends, ["end:d2", "end:d1", "end:static"]);
}

#[tokio::test]
async fn dynamic_permanent_child_is_restarted() {
    let sup = spawn(SupervisorSpec::new(Strategy::OneForOne)).await;
    let first = sup.start_child(worker("p")).await.unwrap();
    inject(&first, WorkerMsg::Panic);
    eventually("p restarted", || async { restarts(&sup, "p").await == 1 }).await;
    assert_ne!(cell_of(&sup, "p").await.get_id(), first.get_id());
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn duplicate_id_is_refused() {
    let sup = spawn(SupervisorSpec::new(Strategy::OneForOne).child(worker("a"))).await;
    let err = sup.start_child(worker("a")).await.unwrap_err();
    assert!(
        matches!(&err, StartChildError::Start(StartError::DuplicateId { id }) if id == "a"),
        "{err:?}"
    );
    assert_eq!(sup.which_children().await.unwrap().len(), 1);
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn terminate_child_stops_and_forgets_it() {
    let sup = spawn(
        SupervisorSpec::new(Strategy::OneForAll)
            .child(worker("a"))
            .child(worker("b")),
    )
    .await;
    let a = cell_of(&sup, "a").await;
    let b = cell_of(&sup, "b").await;
    sup.terminate_child("b").await.unwrap();
    assert_eq!(b.get_status(), ractor::ActorStatus::Stopped);
    // Its exit is not a failure: one_for_all did not restart a.
    let children = sup.which_children().await.unwrap();
    assert_eq!(child_ids(&children), ["a"]);
    assert_eq!(children[0].cell.as_ref().unwrap().get_id(), a.get_id());
    assert_eq!(sup.stats().await.unwrap().restarts, 0);

    let err = sup.terminate_child("b").await.unwrap_err();
    assert_eq!(err, TerminateChildError::NotFound { id: "b".into() });
    assert_eq!(err.to_string(), "no child with id 'b'");
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn start_failures_are_reported_precisely() {
    let sup = spawn(SupervisorSpec::new(Strategy::OneForOne)).await;

    let err = sup.start_child(failing_child("f")).await.unwrap_err();
    match &err {
        StartChildError::Start(StartError::Spawn { id, source }) => {
            assert_eq!(id, "f");
            assert!(source.to_string().contains("refusing to start"), "{source}");
        }
        other => panic!("expected Spawn, got {other:?}"),
    }

    let panicky = ChildSpec::new("p", |_sup| async move {
        if true {
            panic!("start function exploded");
        }
        unreachable!()
    });
    match sup.start_child(panicky).await.unwrap_err() {
        StartChildError::Start(StartError::Panicked { id, message }) => {
            assert_eq!(id, "p");
            assert_eq!(message, "start function exploded");
        }
        other => panic!("expected Panicked, got {other:?}"),
    }

    // Spawned, but not linked under the supervisor.
    let unlinked = ChildSpec::new("u", |_sup| async move {
        let (child, _) = Actor::spawn(
            None,
            kit::Worker,
            kit::WorkerArgs {
                name: "u".into(),
                log: None,
                stop_delay: Duration::ZERO,
            },
        )
        .await?;
        Ok(child.get_cell())
    });
    match sup.start_child(unlinked).await.unwrap_err() {
        StartChildError::Start(StartError::NotLinked { id }) => assert_eq!(id, "u"),
        other => panic!("expected NotLinked, got {other:?}"),
    }

    assert!(sup.which_children().await.unwrap().is_empty());
    assert_eq!(sup.stats().await.unwrap().restarts, 0);
    sup.stop_gracefully(WAIT).await.unwrap();
}
