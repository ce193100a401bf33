"""The package version, kept in one place for the build backend and `mediablocks.__version__`."""

__version__ = "0.1.0"
