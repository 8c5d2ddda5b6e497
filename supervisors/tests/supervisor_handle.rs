//! `SupervisorRef`: timed calls and their precise errors.

#[path = "support/kit.rs"]
mod kit;

use std::time::Duration;

use beam_mcp_supervisors::{
    CallError, ChildSpec, Request, StartChildError, StopError, Strategy, Supervisor, SupervisorRef,
    SupervisorSpec,
};
use kit::*;
use ractor::Actor;

#[tokio::test]
async fn calls_to_a_stopped_supervisor_are_unavailable() {
    let (sup, join) = SupervisorRef::spawn(None, SupervisorSpec::new(Strategy::OneForOne))
        .await
        .unwrap();
    sup.stop_gracefully(WAIT).await.unwrap();
    tokio::time::timeout(WAIT, join).await.unwrap().unwrap();

    assert_eq!(
        sup.which_children().await.unwrap_err(),
        CallError::Unavailable {
            request: Request::WhichChildren
        }
    );
    assert_eq!(sup.stats().await.unwrap_err().request(), Request::Stats);
    assert!(matches!(
        sup.start_child(worker("late")).await.unwrap_err(),
        StartChildError::Call(CallError::Unavailable {
            request: Request::StartChild
        })
    ));
    assert_eq!(
        sup.stop_gracefully(WAIT).await.unwrap_err(),
        StopError::NotRunning
    );
}

#[tokio::test]
async fn a_busy_supervisor_times_out_with_the_request_named() {
    let sup = spawn(SupervisorSpec::new(Strategy::OneForOne)).await;
    let slow_start = ChildSpec::new("slow", |sup| async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (child, _) = Actor::spawn_linked(
            None,
            kit::Worker,
            kit::WorkerArgs {
                name: "slow".into(),
                log: None,
                stop_delay: Duration::ZERO,
            },
            sup,
        )
        .await?;
        Ok(child.get_cell())
    });
    let impatient = sup.clone().with_call_timeout(Duration::from_millis(50));
    let err = impatient.start_child(slow_start).await.unwrap_err();
    let StartChildError::Call(call) = &err else {
        panic!("expected a call error, got {err:?}");
    };
    assert!(call.is_timeout());
    assert_eq!(call.request(), Request::StartChild);
    assert_eq!(
        call.to_string(),
        "supervisor did not answer start_child within 50 ms"
    );
    // The request was still carried out.
    eventually("slow child started anyway", || async {
        sup.which_children().await.unwrap().len() == 1
    })
    .await;
    sup.stop_gracefully(WAIT).await.unwrap();
}

#[tokio::test]
async fn stop_gracefully_reports_a_shutdown_outlasting_its_wait() {
    let sup = spawn(
        SupervisorSpec::new(Strategy::OneForOne).child(
            logged_worker("slow", None, Duration::from_millis(400))
                .shutdown(beam_mcp_supervisors::Shutdown::Infinity),
        ),
    )
    .await;
    let err = sup
        .stop_gracefully(Duration::from_millis(50))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        StopError::Timeout {
            after: Duration::from_millis(50)
        }
    );
    // It goes on shutting down and exits by itself.
    eventually("supervisor exited", || async {
        sup.cell().get_status() == ractor::ActorStatus::Stopped
    })
    .await;
}

#[tokio::test]
async fn from_cell_recognises_supervisors_only() {
    let inner = SupervisorSpec::new(Strategy::OneForOne).child(worker("w"));
    let sup = spawn(
        SupervisorSpec::new(Strategy::RestForOne)
            .child(worker("plain"))
            .child(Supervisor::child_spec("inner", inner)),
    )
    .await;
    assert!(SupervisorRef::from_cell(cell_of(&sup, "plain").await).is_none());
    let inner = SupervisorRef::from_cell(cell_of(&sup, "inner").await).unwrap();
    assert_eq!(child_ids(&inner.which_children().await.unwrap()), ["w"]);
    let stats = sup.stats().await.unwrap();
    assert_eq!(stats.strategy, Strategy::RestForOne);
    assert_eq!(stats.intensity, beam_mcp_supervisors::Intensity::default());
    sup.stop_gracefully(WAIT).await.unwrap();
    assert_eq!(
        inner.which_children().await.unwrap_err(),
        CallError::Unavailable {
            request: Request::WhichChildren
        }
    );
}

#[tokio::test]
async fn restart_count_of_an_unknown_child_is_none() {
    let sup = spawn(SupervisorSpec::new(Strategy::OneForOne).child(worker("a"))).await;
    assert_eq!(sup.restart_count("a").await.unwrap(), Some(0));
    assert_eq!(sup.restart_count("zzz").await.unwrap(), None);
    sup.stop_gracefully(WAIT).await.unwrap();
}
