"""Reading hand-ins without trusting them: ``submissions.py`` the submissions folder's
entries and their ids, ``hand_in.py`` one hand-in's package copied under checked names,
``unpack.py`` the files of a folder or a zip."""
