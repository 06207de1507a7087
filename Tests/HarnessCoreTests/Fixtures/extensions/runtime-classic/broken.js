let broken = ;
