"""Print the whole tool catalog (what the agent, the API and the CLI can be offered)."""

import json

from django.core.management.base import BaseCommand

from apps.tools import gating, registry
from apps.tools.catalog import describe


class Command(BaseCommand):
    help = "List every registered tool; --json prints full schemas."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="full descriptions and schemas as JSON")
        parser.add_argument("--family", help="only this family")

    def handle(self, *args, **options):
        tools = registry.all_tools()
        if options["family"]:
            wanted = registry.normalize_family(options["family"])
            tools = [t for t in tools if wanted in t.families]
        if options["json"]:
            self.stdout.write(json.dumps([describe(t) for t in tools], indent=2, ensure_ascii=False))
            return
        for t in tools:
            gate = ""
            if t.is_gated:
                gate = f"  [module {t.module}: {'installed' if gating.is_installed(t.module) else 'NOT installed'}]"
            mode = "read " if t.read_only else "write"
            self.stdout.write(f"{t.family:<16} {mode} {t.name:<32} {t.summary}{gate}")
        self.stdout.write(f"{len(tools)} tools")
