"""The digit-task training job. Keras and TensorFlow are imported only in the child process
(`python -m tui_course.training`); this package's other modules stay free of them."""
