"""Scenario instances as GCG prompts: fresh parameters, the run's protocol, the rule's target.

Each prompt is what `rulebench run scenarios` would send for the rule's attack case (the
instructions as its protocol places them, then the case), with the target the reply should
start with. Instances are drawn from a string seed, so a block of steps always attacks the same
instances: a resumed attack re-draws exactly what the interrupted one used.
"""

import random
from dataclasses import dataclass

from rulebench.attack.conversations import SUFFIX_INDEX, attack_case
from rulebench.attack.gcg.prompt import AttackPrompt
from rulebench.attack.targets import target_for
from rulebench.core.errors import ConfigError
from rulebench.scenarios.protocol import Protocol, instructions
from rulebench.scenarios.registry import behaviors, scenario_class


def check_rule(scenario: str, behavior: str | None) -> str:
    """The behavior to attack: the given one, or the scenario's only v3 rule.

    Raises:
        ConfigError: an unknown scenario, a rule of another scenario, or a scenario with
            several rules and none chosen (its rules are named).
    """
    scenario_class(scenario)  # unknown names fail with a did-you-mean
    rules = [name for name, (owner, _) in behaviors("v3").items() if owner == scenario]
    if not rules:
        raise ConfigError(f"{scenario} has no v3 rule to attack (v1-only scenario)")
    if behavior is None:
        if len(rules) > 1:
            raise ConfigError(
                f"{scenario} has several rules: choose one with --rule ({', '.join(rules)})"
            )
        return rules[0]
    if behavior not in rules:
        raise ConfigError(
            f"'{behavior}' is not a rule of {scenario} (its rules: {', '.join(rules)})"
        )
    return behavior


@dataclass(frozen=True)
class RulePrompts:
    """How GCG prompts are drawn for one rule, under one protocol, for one model's template."""

    scenario: str
    behavior: str
    protocol: Protocol
    has_system_role: bool

    def sample(self, seed: str, count: int) -> list[AttackPrompt]:
        """`count` instances of the rule's attack case, drawn from `seed`, as GCG prompts."""
        rng = random.Random(seed)
        prompts = []
        for _ in range(count):
            instance = scenario_class(self.scenario).sample(rng)
            head, _ = instructions(instance, self.protocol, self.has_system_role)
            case = attack_case(instance, self.behavior)
            target = target_for(self.scenario, self.behavior, instance.params.model_dump())
            at = len(head) + SUFFIX_INDEX
            prompts.append(AttackPrompt(messages=(*head, *case), target=target, suffix_at=at))
        return prompts
