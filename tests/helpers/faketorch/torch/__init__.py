# A stand-in for torch in the launch tests: only the launcher pieces that
# dglpart's --trainer_launcher probe and torchrun use, no tensors.
