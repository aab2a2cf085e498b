"""First names for generated family members: our own list, split by gender.

Each list is longer than the largest family tree the generator builds, so names within one story
never repeat. No name is another's prefix, so a name found in a sentence is the one meant.
"""

_MALE_TEXT = """
    Abel Adrian Alfred Ambrose Alaric Arlo Barnaby Basil Bertram Calvin Casimir Cedric Crispin
    Conrad Cyril Dalton Desmond Dorian Edgar Edmund Elias Emeric Ferris Fletcher Florian Gideon
    Godfrey Gregor Hadley Horace Hugo Ignatius Ingram Jasper Jerome Jonas Julian Kendrick Lambert
    Leopold Lionel Lucian Magnus Malcolm Marius Merrick Milo Mortimer Nestor Nolan Ottmar Osric
    Otis Percival Quentin Rafferty Reuben Roland Rufus Sebastian Silas Solomon Stellan Tarquin
    Thaddeus Tobias Ulric Valentin Vaughn Wendell Wilbur Xavier Yorick Zebulon Ansel Benedict
    Caspar Emrys Fabian Gilroy Hollis Ivor Leander Murdoch Oswin Perrin Royce Tiernan Welby
    """

_FEMALE_TEXT = """
    Adelaide Agatha Alma Annika Beatrix Bronwen Calla Celeste Cordelia Daphne Delphine Dorothea
    Edith Elowen Esme Fenella Florence Georgina Greta Hazel Henrietta Imogen Isolde Juniper Junia
    Kestrel Leonie Linnea Lorelei Mabel Marguerite Matilda Meredith Mirabel Nerys Octavia Odette
    Ottilie Pernille Philippa Primrose Quilla Rosalind Rowena Sabine Saoirse Seraphina Sidonie
    Tamsin Theodora Ursula Verity Vivienne Wilhelmina Winifred Xanthe Yvaine Zinnia Ariadne
    Bettina Clementine Damaris Eulalia Faustine Gwendolyn Honora Ingrid Jessamy Kerensa Lavinia
    Minerva Noemi Marisol Leocadia Aurelie Briony Cosima Dulcie Estelle
    Orla Petronella Rhiannon Solveig Tabitha Valeska Wrenna Yolanda Zelda Perpetua
    """

MALE_NAMES: tuple[str, ...] = tuple(_MALE_TEXT.split())
FEMALE_NAMES: tuple[str, ...] = tuple(_FEMALE_TEXT.split())
