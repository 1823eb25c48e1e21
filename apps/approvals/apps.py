from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, PeriodicJob


class ApprovalsConfig(DomainApp):
    """Freigaben: the dispatcher's approval step (policies per agent and tool, staged calls that
    wait for a person, standing approvals, approval tokens, the headless rule)."""

    name = "apps.approvals"
    label = "approvals"
    verbose_name = _("Approvals")
    navigation = [
        NavEntry(
            "approvals",
            _("Approvals"),
            "approvals:index",
            order=76,
            badge="apps.approvals.decisions.pending_count",
            badge_topics=("approvals",),
        )
    ]
    periodic_jobs = [
        PeriodicJob(
            "Freigaben: abgelaufene Anfragen", "apps.approvals.jobs.expire_staged_calls", every_seconds=60
        ),
    ]
    extends = {
        "agent.run_cancelled": ["apps.approvals.decisions.deny_for_cancelled_run"],
        "review.queues": ["apps.approvals.review_queue.staged_calls"],
        "tools.approval_tokens": ["apps.approvals.tokens.check"],
    }
