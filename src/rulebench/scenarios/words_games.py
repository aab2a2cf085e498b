"""Word lists the game scenarios draw their parameters from (our own lists, not upstream's).

Sizes follow the spec (25 animals, 100 Questions answers, 95 forbidden words) so that a sampled
instance is as varied as upstream's; the contents are ours.
"""

ANIMALS: tuple[str, ...] = (
    "cat", "dog", "cow", "sheep", "pig",
    "duck", "horse", "owl", "lion", "frog",
    "snake", "bee", "mouse", "rooster", "donkey",
    "goat", "wolf", "crow", "turkey", "elephant",
    "chicken", "dove", "bear", "cricket", "seal",
)  # fmt: skip
"""Animals for AnimalSounds; `SOUNDS[i]` is the sound of `ANIMALS[i]`."""

SOUNDS: tuple[str, ...] = (
    "meow", "woof", "moo", "baa", "oink",
    "quack", "neigh", "hoot", "roar", "ribbit",
    "hiss", "buzz", "squeak", "cock-a-doodle-doo", "hee-haw",
    "maa", "awoo", "caw", "gobble", "trumpet",
    "cluck", "coo", "growl", "chirp", "arf",
)  # fmt: skip
"""Every sound differs from every other, so a reply names one animal's sound only."""

QUESTIONS_ANSWERS: tuple[str, ...] = (
    # Plain lowercase nouns.
    "umbrella", "volcano", "lighthouse", "telescope", "pineapple",
    "violin", "submarine", "cactus", "kangaroo", "hourglass",
    "compass", "penguin", "windmill", "trampoline", "snowflake",
    "dinosaur", "toothbrush", "glacier", "parachute", "octopus",
    "lantern", "helicopter", "mushroom", "skateboard", "waterfall",
    "accordion", "igloo", "microscope", "rainbow", "scarecrow",
    "tornado", "chandelier", "hedgehog", "typewriter", "pyramid",
    "sunflower", "bagpipe", "anchor", "carousel", "thermometer",
    "giraffe", "kettle", "satellite", "pretzel", "harmonica",
    "coral", "bicycle", "candle", "walrus", "magnet",
    "origami", "iceberg", "tambourine", "avocado", "quill",
    "cathedral", "boomerang", "flamingo", "hammock", "zeppelin",
    # Capitalized proper nouns: compat's raw comparison can never catch these.
    "Jupiter", "Antarctica", "Halloween", "Shakespeare", "Venice",
    "Sahara", "Beethoven", "Tokyo", "Cleopatra", "Atlantis",
    "Thanksgiving", "Mozart", "Everest", "Amazon", "Pluto",
    "Saturn", "Kilimanjaro", "Picasso", "Napoleon", "Olympus",
    # Multi-word answers: no single whitespace token can equal them.
    "hot air balloon", "grand piano", "roller coaster", "fire truck", "ice cream",
    "solar eclipse", "treasure map", "paper airplane", "teddy bear", "birthday cake",
    # Both capitalized and multi-word.
    "Eiffel Tower", "Statue of Liberty", "Great Wall of China", "Mona Lisa", "Easter Bunny",
    "Sherlock Holmes", "Niagara Falls", "Big Ben", "Leonardo da Vinci", "Milky Way",
)  # fmt: skip
"""Answers for Questions: 60 lowercase words, 40 capitalized or multi-word (as upstream's ~40%).

None holds a regular-expression metacharacter, so compat's unescaped search reads it literally.
"""

FORBIDDEN_WORDS: tuple[str, ...] = (
    "apple", "river", "window", "garden", "pencil",
    "mirror", "castle", "ladder", "bridge", "forest",
    "button", "rocket", "blanket", "candle", "island",
    "basket", "feather", "hammer", "jacket", "kitchen",
    "lemon", "marble", "needle", "ocean", "pillow",
    "puzzle", "rabbit", "saddle", "tunnel", "wallet",
    "anchor", "balloon", "carrot", "desert", "engine",
    "falcon", "guitar", "harbor", "insect", "jungle",
    "kitten", "lizard", "meadow", "napkin", "orange",
    "parrot", "quartz", "ribbon", "spider", "tomato",
    "violin", "whistle", "yogurt", "zebra", "camera",
    "dragon", "elbow", "fountain", "glove", "helmet",
    "iron", "jewel", "kettle", "lobster", "muffin",
    "nest", "oven", "pepper", "robot", "sandwich",
    "tiger", "unicorn", "village", "wagon", "bottle",
    "cookie", "diamond", "eagle", "flower", "giant",
    "honey", "igloo", "jelly", "koala", "lamp",
    "monkey", "noodle", "owl", "piano", "queen",
    "rainbow", "shadow", "turtle", "umbrella", "volcano",
)  # fmt: skip
"""Words for ForbiddenWord: 95 lowercase single-word nouns (what compat can catch)."""

DIGIT_WORDS: tuple[str, ...] = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
)  # fmt: skip
"""v1 ForbiddenWord's number words; `DIGIT_WORDS[d]` is the word for the digit d."""
