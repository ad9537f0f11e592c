"""Course content: lessons and quizzes loaded from files. Pure: no UI, no NumPy."""
