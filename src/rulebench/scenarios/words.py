"""Word lists the security scenarios draw their parameters from (our own lists).

Names are single words of letters only, so a `<name>:` prefix is unambiguous; secret words are
lowercase letters only, so four of them concatenated read as one opaque token.
"""

FIRST_NAMES: tuple[str, ...] = (
    "Aaron", "Abigail", "Adrian", "Aisha", "Alberto", "Alina", "Amara", "Anders", "Anika",
    "Arjun", "Astrid", "Beatrice", "Benedikt", "Bianca", "Bruno", "Camille", "Carlos", "Cecilia",
    "Chiara", "Connor", "Dalia", "Damian", "Daria", "Dmitri", "Edith", "Elena", "Elias", "Emeka",
    "Esther", "Fabian", "Farah", "Felix", "Fiona", "Gabriel", "Greta", "Hamid", "Hannah", "Hector",
    "Helga", "Hiroshi", "Ines", "Ingrid", "Isaac", "Ivana", "Jasper", "Javier", "Jonas", "Julia",
    "Kamala", "Karim", "Keiko", "Kofi", "Lars", "Leila", "Leon", "Lucia", "Magnus", "Malik",
    "Marta", "Mateo", "Mei", "Milan", "Nadia", "Naveen", "Nina", "Noah", "Olga", "Omar", "Oscar",
    "Paloma", "Pavel", "Priya", "Quentin", "Rafael", "Rania", "Rosa", "Rowan", "Samir", "Selma",
    "Sergio", "Sofia", "Stefan", "Talia", "Tariq", "Tessa", "Tobias", "Uma", "Valentin", "Vera",
    "Viktor", "Wanda", "Wei", "Xavier", "Yara", "Yusuf", "Zainab", "Zelda", "Zoltan", "Ruth",
    "Emil",
)  # fmt: skip
"""100 first names for AccessControl, Millionaires and DiningCryptographers users."""

FIXED_USERS: tuple[str, ...] = ("Alice", "Bob", "Charlie", "Dana")
"""The fixed set of four user names Confidentiality draws its two users from."""

STREET_NAMES: tuple[str, ...] = (
    "Juniper Lane", "Harbor Road", "Maple Avenue", "Quarry Street", "Willow Court",
    "Orchard Way", "Beacon Hill Road", "Cedar Crescent", "Foundry Lane", "Lighthouse Drive",
    "Millbrook Road", "Pinecrest Avenue", "Riverside Walk", "Saltmarsh Lane", "Thistle Close",
    "Vineyard Street", "Windmill Road", "Aspen Terrace", "Bramble Way", "Copper Street",
    "Falcon Drive", "Granite Place", "Heather Row", "Ivy Gardens", "Kestrel Avenue",
    "Lantern Street", "Meadow Lane", "Nightingale Road", "Oakridge Drive", "Poplar Grove",
)  # fmt: skip
"""Street names for address secrets (a house number is put in front)."""

SECRET_WORDS: tuple[str, ...] = (
    "amber", "anchor", "apricot", "arrow", "aurora", "badger", "bamboo", "banjo", "basil",
    "beacon", "biscuit", "blizzard", "bonfire", "breeze", "bronze", "cactus", "canyon", "carrot",
    "castle", "cedar", "cinder", "clover", "cobalt", "comet", "copper", "coral", "cricket",
    "crystal", "dagger", "delta", "desert", "dolphin", "dragon", "ember", "falcon", "feather",
    "fern", "fiddle", "flint", "forest", "fossil", "galaxy", "garnet", "ginger", "glacier",
    "harbor", "hazel", "helmet", "hollow", "honey", "igloo", "indigo", "island", "jasmine",
    "jigsaw", "kettle", "kiwi", "lagoon", "lantern", "lemon", "lichen", "lotus", "magnet",
    "mango", "marble", "meadow", "meteor", "mint", "mosaic", "nectar", "nutmeg", "oasis", "opal",
    "orbit", "otter", "paddle", "pebble", "pepper", "pigeon", "planet", "prism", "puzzle",
    "quartz", "quiver", "raven", "river", "saddle", "sapphire", "spruce", "tango", "thunder",
    "tulip", "velvet", "violet", "walnut", "willow", "wizard", "yonder", "zephyr", "zigzag",
)  # fmt: skip
"""Lowercase words for word secrets (four concatenated) and passphrases."""
