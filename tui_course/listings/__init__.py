"""A lesson's runnable listings: NumPy ones in the code sandbox, Keras ones in a child."""
