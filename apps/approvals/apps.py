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
        "tools.approval": ["apps.approvals.policy.STEP"],
        "core.instance_settings": ["apps.approvals.staging.INSTANCE_SETTINGS"],
        "agent.run_cancelled": ["apps.approvals.decisions.deny_for_cancelled_run"],
        "review.queues": ["apps.approvals.review_queue.staged_calls"],
        "tools.approval_tokens": ["apps.approvals.tokens.check"],
    }

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import m2m_changed, post_delete, post_save

        from apps.approvals import policy
        from apps.approvals.models import Policy

        for signal in (post_save, post_delete):
            signal.connect(policy.policy_changed, sender=Policy, dispatch_uid="approvals.policy_changed")
        m2m_changed.connect(
            policy.policy_changed,
            sender=get_user_model().groups.through,
            dispatch_uid="approvals.groups_changed",
        )
