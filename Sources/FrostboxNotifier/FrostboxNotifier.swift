// FrostboxNotifier
